/**
 * Issue 19: `npm run bench cloud-cost [-- --items 10000] [--language python|cpp|kotlin …] [--without inactive] [--architecture arm64|x86_64]`: what
 * a run costs on AWS against one EC2 instance running the local CLI. For each language it runs
 * the cloud-scale simulation (sim/cloud) at `--items` and prints one JSON line: the
 * simulated deployment's execution cost (Lambda GB-seconds and requests), model cost and wall
 * time, beside the local CLI on LOCAL_INSTANCE for the same items at the throughput measured in
 * docs/sandbox.md.
 */
import { parseArgs } from 'node:util';
import { FIXES, LIMITS, type Without } from '../sim/cloud/simulate.ts';
import { SIM_LANGUAGES, type SimLanguage } from '../sim/cloud/sim-model.ts';
import { costLine } from '../sim/cloud/cost-line.ts';
import { DEFAULT_DEPLOYMENT } from '#app/cloud/estimate.ts';

export { costLine, LOCAL_INSTANCE, LOCAL_ITEMS_PER_SECOND, type CostLine } from '../sim/cloud/cost-line.ts';

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      items: { type: 'string', default: '10000' },
      language: { type: 'string', multiple: true, default: ['python', 'kotlin'] },
      without: { type: 'string', multiple: true, default: [] },
      architecture: { type: 'string', default: DEFAULT_DEPLOYMENT.architecture },
    },
  });
  const architecture = values.architecture;
  if (architecture !== 'arm64' && architecture !== 'x86_64') throw new Error(`--architecture must be arm64 or x86_64, got ${architecture}`);
  const items = Number(values.items);
  if (!Number.isInteger(items) || items < 1) throw new Error(`--items must be a positive integer, got ${values.items}`);
  for (const language of values.language)
    if (!SIM_LANGUAGES.includes(language as SimLanguage)) throw new Error(`--language must be one of ${SIM_LANGUAGES.join(', ')}, got ${language}`);
  const known: readonly string[] = [...FIXES, ...LIMITS];
  for (const w of values.without) if (!known.includes(w)) throw new Error(`--without ${w}: expected one of ${known.join(', ')}`);
  for (const language of values.language)
    process.stdout.write(`${JSON.stringify(await costLine(language as SimLanguage, items, values.without as Without[], architecture))}\n`);
}
