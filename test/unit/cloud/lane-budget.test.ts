// A Lambda judge waits for its runner's cold start, its compile (up to the compile's wall-clock
// safety net) and every test: a sample whose worst case does not fit the judge's budget goes to
// the Fargate lane instead of timing the judge out while the runner bills on.
import { describe, expect, it } from 'vitest';
import { LAMBDA_BUDGET_MS, laneFor, RUNNER_COLD_START_MS, worstCaseMs } from '#app/cloud/stages.ts';
import type { IoTestsTask } from '#core/types.ts';

const task = (tests: number, timeLimitMs: number): IoTestsTask =>
  ({
    kind: 'io-tests',
    id: 't',
    name: 't',
    statement: '',
    inputSpec: '',
    outputSpec: '',
    examples: [],
    tests: Array.from({ length: tests }, () => ({ input: '1\n', output: '1\n' })),
    timeLimitMs,
    memoryLimitMb: 64,
    checker: { kind: 'tokens' },
    solutions: {},
    slices: {},
    split: 'test',
  }) as unknown as IoTestsTask;

describe('the Lambda lane budget', () => {
  it('counts the runner cold start and the compile wall-clock net, not the 60 s compile CPU limit', () => {
    // 10 tests × 12 s: 180 s with a 60 s compile fitted the old budget; with the compile's 120 s net and the cold start it does not.
    const slow = task(10, 12_000);
    expect(worstCaseMs(slow, 1)).toBe(RUNNER_COLD_START_MS + 120_000 + 120_000);
    expect(worstCaseMs(slow, 1)).toBeGreaterThan(LAMBDA_BUDGET_MS);
    expect(laneFor(slow, 1, true)).toBe('fargate');
  });

  it('keeps a sample that fits on Lambda, and everything on Lambda without the Fargate lane', () => {
    expect(laneFor(task(5, 4_000), 1, true)).toBe('lambda');
    expect(laneFor(task(10, 12_000), 1, false)).toBe('lambda');
  });
});
