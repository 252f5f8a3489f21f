// Issue 35: the simulated Python runner bills per sample what the real runner was measured to spend
// (sim-model.ts MEASURED_RUNNER, `npm run bench runner-cost`): the cloud side of `npm run bench
// cloud-cost`'s ratio rests on it. The requests are built as the judge builds them (a batch of
// samples of one task, 5 tests each at the limits the simulated RoCode run sends).
import { describe, expect, it } from 'vitest';
import { busyLoopTle, kindOf, MEASURED_RUNNER, rlimitCpuMs, runRequest } from '../../../sim/cloud/sim-model.ts';
import { ONE_VCPU_MB } from '#app/cloud/function-memory.ts';
import { runnerRequest, type RunnerBatchRequest } from '#app/cloud/runner-protocol.ts';
import { benchProgram, type AnswerKind } from '../../../sim/rocode-generator.ts';

// The limits the simulated RoCode run's judge sends each test (recorded from its runner requests).
const LIMITS = { cpuMs: 4000, wallMs: 10_000, memoryMb: 512 };
const STDINS = [1, 2, 5, 10, 50].map((n) => `${n}\n${Array.from({ length: n }, (_, i) => i + 1).join(' ')}\n`);
const measured = MEASURED_RUNNER.python;

/** One batch request of `kinds` (samples of one task), as runner-handoff.ts combineHandoffs sends it. */
function batch(kinds: AnswerKind[]): string {
  const programs = kinds.map((kind) =>
    runnerRequest(
      { kind: 'source', language: 'python', code: benchProgram('python', kind) },
      STDINS.map((stdin) => ({ stdin, limits: LIMITS })),
      65_536,
    ),
  );
  const request: RunnerBatchRequest = { version: 1, programs };
  return JSON.stringify(request);
}

const middle = () => 0.5; // the simulated ±20 % spread at its middle

describe('the simulated Python runner’s bill per sample', () => {
  it('is the measured CPU time of a sample that ends on its own: its syntax check, after-item check and 5 tests', () => {
    const kinds: AnswerKind[] = ['OK', 'WA', 'RE', 'OK'];
    const billed = runRequest(batch(kinds), middle, ONE_VCPU_MB).durationMs / kinds.length;
    const expected = measured.perSampleMs + 5 * measured.testMs;
    // The measurement's standard error is under 1 ms; a drift of 15 % (as the dry run's estimate is held to) matters.
    expect(billed).toBeGreaterThan(expected * 0.85);
    expect(billed).toBeLessThan(expected * 1.15);
  });

  it('adds a TLE test its RLIMIT_CPU, no less than the CPU the real runner measured it spin', () => {
    const ok = runRequest(batch(['OK']), middle, ONE_VCPU_MB).durationMs;
    const tle = runRequest(batch(['TLE']), middle, ONE_VCPU_MB).durationMs;
    const tleTestMs = tle - ok + measured.testMs; // the TLE answer's first 4 tests end on their own
    expect(tleTestMs).toBeCloseTo(busyLoopTle(LIMITS, ONE_VCPU_MB).wallMs, -1);
    expect(tleTestMs).toBeGreaterThanOrEqual(measured.tleTestCpuMs);
    expect(tleTestMs).toBeLessThanOrEqual(rlimitCpuMs(LIMITS) * 1.05);
  });

  it('averages, over the simulated mix (5 % TLE), the measured sample and the TLE share', () => {
    const kinds = Array.from({ length: 20 }, (_, s) => kindOf(0, s, 'python') as AnswerKind);
    const billed = runRequest(batch(kinds), middle, ONE_VCPU_MB).durationMs / kinds.length;
    const expected = measured.perSampleMs + 5 * measured.testMs + (1 / 20) * (rlimitCpuMs(LIMITS) - measured.testMs);
    expect(billed).toBeGreaterThan(expected * 0.85);
    expect(billed).toBeLessThan(expected * 1.15);
  });
});
