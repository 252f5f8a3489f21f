// Issue 35: `npm run bench function-memory` measures each Node stage's peak in fresh child
// processes (its bundled entry point, then its real handler in the simulation); the memory
// layers/app/cloud/function-memory.ts gives each stage holds that peak with the module's headroom,
// and the simulation bills the Node stages at that memory.
import { describe, expect, it } from 'vitest';
import { FUNCTION_MEMORY, minimumHeadroomMb, RUNNER_MEMORY, runnerFloorMb } from '#app/cloud/function-memory.ts';
import { EXECUTOR_IMAGES } from '#core/languages/index.ts';
import { measureStagePeaks } from '../../../sim/cloud/measure-memory.ts';
import { measureRunnerPeaks } from '../../../sim/cloud/measure-executor-memory.ts';
import { functions } from '../../../sim/cloud/deployment.ts';

describe('the Node stages’ memory, measured', () => {
  it('plan and generate, measured on 200 items, peak below their memory less the headroom', async () => {
    const peaks = await measureStagePeaks({ stages: ['plan', 'generate'], items: 200 });
    for (const peak of peaks) {
      // A fresh Node's own resident set, then more once the stage's modules are loaded.
      expect(peak.node_baseline_mb).toBeGreaterThan(10);
      expect(peak.cold_start_mb).toBeGreaterThan(peak.node_baseline_mb);
      expect(peak.invocations).toBeGreaterThan(0);
      expect(peak.peak_mb).toBe(peak.cold_start_mb + peak.invocation_mb);
      expect(peak.peak_mb + minimumHeadroomMb(peak.peak_mb)).toBeLessThanOrEqual(FUNCTION_MEMORY[peak.stage as 'plan' | 'generate'].memoryMb);
    }
  }, 600_000);

  it('the simulated deployment bills plan, generate and aggregate at that memory', () => {
    const fns = functions('python', { generateMaxConcurrency: 5, runnerReservation: true, fargateMaxTasks: 4 });
    expect(fns.generate.memoryMb).toBe(FUNCTION_MEMORY.generate.memoryMb);
    expect(fns.plan.memoryMb).toBe(FUNCTION_MEMORY.plan.memoryMb);
    expect(fns.aggregate.memoryMb).toBe(FUNCTION_MEMORY.aggregate.memoryMb);
  });
});

// Issue 35 (35k): the Python and C++ runners measured as a runner holds them (this machine's sandbox,
// a program filling its per-test limit); their image's memory holds the measured peaks' floor.
describe('the runners’ memory, measured', () => {
  it('python and cpp: a program fills its limit in the sandbox, and the runner’s memory holds Node + it + headroom', () => {
    const peaks = measureRunnerPeaks((['python', 'cpp'] as const).map((runner) => ({ runner, programLimitMb: RUNNER_MEMORY[runner].peaks.programLimitMb })));
    for (const peak of peaks) {
      expect(peak.programs).toBeGreaterThan(0);
      // The filling program reached most of its limit (the sandbox let it, and it was counted).
      expect(peak.limit_program_mb).toBeGreaterThan(peak.program_limit_mb * 0.8);
      expect(peak.limit_program_mb).toBeLessThanOrEqual(peak.program_limit_mb + 64);
      const floor = runnerFloorMb({ nodeMb: peak.node_mb, compileServerMb: 0, limitProgramMb: peak.limit_program_mb, programLimitMb: peak.program_limit_mb });
      expect(EXECUTOR_IMAGES.find((i) => i.id === peak.runner)?.memoryMb, peak.runner).toBeGreaterThanOrEqual(floor);
    }
  }, 300_000);
});
