/**
 * Issue 35: `npm run bench function-memory [-- --stage plan|generate|aggregate …] [--items 2000]`:
 * each Node stage's peak memory (sim/cloud/measure-memory.ts), one JSON line per stage, beside the
 * memory layers/app/cloud/function-memory.ts gives its function and the headroom that leaves.
 */
import { parseArgs } from 'node:util';
import { FUNCTION_MEMORY } from '#app/cloud/function-memory.ts';
import { MEASURED_STAGES, measureStagePeaks, type MeasuredStage } from '../sim/cloud/measure-memory.ts';

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { stage: { type: 'string', multiple: true, default: [...MEASURED_STAGES] }, items: { type: 'string', default: '2000' } },
  });
  for (const stage of values.stage)
    if (!MEASURED_STAGES.includes(stage as MeasuredStage)) throw new Error(`--stage must be one of ${MEASURED_STAGES.join(', ')}, got ${stage}`);
  const items = Number(values.items);
  if (!Number.isInteger(items) || items < 1) throw new Error(`--items must be a positive integer, got ${values.items}`);
  for (const peak of await measureStagePeaks({ stages: values.stage as MeasuredStage[], items })) {
    const chosen = FUNCTION_MEMORY[peak.stage];
    process.stdout.write(`${JSON.stringify({ ...peak, memory_mb: chosen.memoryMb, headroom_mb: chosen.memoryMb - peak.peak_mb })}\n`);
  }
}
