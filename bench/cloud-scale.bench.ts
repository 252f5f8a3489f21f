/**
 * Issue 19: `npm run bench cloud-scale -- --items N [--without <fix|limit>] [--generate-concurrency C] [--language python|cpp|kotlin] [--sweep] [--chunk-size K] [--detail]`
 * runs the cloud pipeline's real stage code against a simulation of AWS's limits
 * (sim/cloud) and prints exactly one JSON line:
 * `{"items","completed","se","missing","dlq","virtual_wall_s","lambda_gb_s","cost_usd","bottleneck"}`.
 * `--model-quota <requests per minute>,<tokens per minute>` sets the model's on-demand quota (default: Claude 3 Haiku's in us-east-1, sim/cloud/limits/model-quota.ts).
 * `--without` reverts one fix (plan-fanout, transient-redelivery, cost-row, runner-reservation, ledger-shards, call-ids, part-shards, quota-requeue)
 * or lifts one limit (recursion, inactive, transaction-conflicts, duplicates) to show what it costs.
 * `--chunk-size` sets plan's items per chunk (default plan.ts's 1,000; smaller shows recursion detection on a small run).
 * `--sweep` keeps the deployment's other executor images judging beside the run (sim/cloud/sweep.ts).
 */
import { parseArgs } from 'node:util';
import { FIXES, LIMITS, runSimulation, type Without } from '../sim/cloud/simulate.ts';
import { PLAN_CHUNK } from '#app/cloud/plan.ts';
import { SIM_LANGUAGES, type SimLanguage } from '../sim/cloud/sim-model.ts';
import { parseModelQuota } from '../sim/cloud/limits/model-quota.ts';

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      items: { type: 'string', default: '10000' },
      without: { type: 'string', multiple: true, default: [] },
      'generate-concurrency': { type: 'string', default: '5' },
      language: { type: 'string', default: 'python' },
      detail: { type: 'boolean', default: false },
      sweep: { type: 'boolean', default: false },
      'chunk-size': { type: 'string', default: String(PLAN_CHUNK) },
      'model-quota': { type: 'string' },
    },
  });
  const items = Number(values.items);
  if (!Number.isInteger(items) || items < 1) throw new Error(`--items must be a positive integer, got ${values.items}`);
  const known: readonly string[] = [...FIXES, ...LIMITS];
  for (const w of values.without) if (!known.includes(w)) throw new Error(`--without ${w}: expected one of ${known.join(', ')}`);
  const chunkSize = Number(values['chunk-size']);
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new Error(`--chunk-size must be a positive integer, got ${values['chunk-size']}`);
  const language = values.language as SimLanguage;
  if (!SIM_LANGUAGES.includes(language)) throw new Error(`--language must be one of ${SIM_LANGUAGES.join(', ')}, got ${values.language}`);
  const { detail, ...line } = await runSimulation({
    items,
    without: values.without as Without[],
    generateMaxConcurrency: Number(values['generate-concurrency']),
    language,
    sweep: values.sweep,
    chunkSize,
    ...(values['model-quota'] !== undefined ? { modelQuota: parseModelQuota(values['model-quota']) } : {}),
  });
  process.stdout.write(`${JSON.stringify(line)}\n`);
  if (values.detail) process.stderr.write(`${JSON.stringify(detail)}\n`);
}
