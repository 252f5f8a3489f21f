/**
 * Issue 35: `npm run bench function-memory [-- --stage plan|generate|aggregate|execute …] [--runner python|cpp|kotlin …] [--items 2000]`:
 * each Node stage's peak memory (sim/cloud/measure-memory.ts), one JSON line per stage, beside the
 * memory layers/app/cloud/function-memory.ts gives its function and the headroom that leaves; then
 * each runner's (sim/cloud/measure-executor-memory.ts: Node, Kotlin's compile server, a program at
 * its per-test limit), one line per runner, beside its image's memory and the floor the module's
 * rule gives (`--runner none`: no runner lines).
 */
import { parseArgs } from 'node:util';
import { FUNCTION_MEMORY, JUDGE_MEMORY, RUNNER_MEMORY, runnerFloorMb } from '#app/cloud/function-memory.ts';
import { EXECUTOR_IMAGES } from '#core/languages/index.ts';
import { MEASURED_STAGES, measureStagePeaks, type MeasuredStage } from '../sim/cloud/measure-memory.ts';
import { MEASURED_RUNNERS, measureRunnerPeaks, type MeasuredRunner } from '../sim/cloud/measure-executor-memory.ts';

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      stage: { type: 'string', multiple: true, default: [...MEASURED_STAGES] },
      runner: { type: 'string', multiple: true, default: [...MEASURED_RUNNERS] },
      items: { type: 'string', default: '2000' },
    },
  });
  for (const stage of values.stage)
    if (!MEASURED_STAGES.includes(stage as MeasuredStage)) throw new Error(`--stage must be one of ${MEASURED_STAGES.join(', ')}, got ${stage}`);
  const runners = values.runner.filter((r) => r !== 'none');
  for (const runner of runners)
    if (!MEASURED_RUNNERS.includes(runner as MeasuredRunner)) throw new Error(`--runner must be one of ${MEASURED_RUNNERS.join(', ')} or none, got ${runner}`);
  const items = Number(values.items);
  if (!Number.isInteger(items) || items < 1) throw new Error(`--items must be a positive integer, got ${values.items}`);
  for (const peak of await measureStagePeaks({ stages: values.stage as MeasuredStage[], items })) {
    const chosen = peak.stage === 'execute' ? JUDGE_MEMORY : FUNCTION_MEMORY[peak.stage];
    process.stdout.write(`${JSON.stringify({ ...peak, memory_mb: chosen.memoryMb, headroom_mb: chosen.memoryMb - peak.peak_mb })}\n`);
  }
  for (const peak of measureRunnerPeaks(
    runners.map((r) => ({ runner: r as MeasuredRunner, programLimitMb: RUNNER_MEMORY[r as MeasuredRunner].peaks.programLimitMb })),
  )) {
    const memoryMb = EXECUTOR_IMAGES.find((i) => i.id === peak.runner)?.memoryMb ?? 0;
    const floorMb = runnerFloorMb({
      nodeMb: peak.node_mb,
      compileServerMb: peak.compile_server_mb,
      limitProgramMb: peak.limit_program_mb,
      programLimitMb: peak.program_limit_mb,
    });
    process.stdout.write(`${JSON.stringify({ ...peak, floor_mb: floorMb, memory_mb: memoryMb, headroom_mb: memoryMb - peak.peak_mb })}\n`);
  }
}
