import { describe, expect, it } from 'vitest';
import { compareRuns, type CompareRow } from '#core/scorers/index.ts';
import type { RunRecord } from '#core/types.ts';
import { codeSample, likertAnswer } from '../../support/records.ts';

function row(rows: CompareRow[], metric: string, slice: string): CompareRow {
  const found = rows.find((r) => r.metric === metric && r.slice === slice);
  if (!found) throw new Error(`no row ${metric} / ${slice}`);
  return found;
}

// Run a passes 10 of 40 tasks; run b passes 30 of the same 40 (every task a passes, plus 20).
const tasks = Array.from({ length: 40 }, (_, i) => `T${i}`);
const difficulty = (i: number) => (i % 2 === 0 ? 'easy' : 'hard');
const runA: RunRecord[] = tasks.map((t, i) => codeSample(t, i < 10 ? 'OK' : 'WA', i < 10 ? 2 : 0, 2, { difficulty: difficulty(i) }));
const runB: RunRecord[] = [
  ...tasks.map((t, i) => codeSample(t, i < 30 ? 'OK' : 'WA', i < 30 ? 2 : 1, 2, { difficulty: difficulty(i) })),
  codeSample('only-in-b', 'WA', 0, 2, { difficulty: 'easy' }),
];

describe('compareRuns', () => {
  const rows = compareRuns(runA, runB, { scorer: 'io-tests', n: 1, seed: 9, iterations: 500 });

  it('finds an obvious improvement as a positive difference with a small opposite share', () => {
    const strict = row(rows, 'pass@1', 'all');
    expect(strict).toMatchObject({ a: 0.25, b: 0.75, diff: 0.5, units: 40, reason: null });
    expect(strict.ci_low).toBeGreaterThan(0);
    expect(strict.ci_high).toBeLessThanOrEqual(1);
    expect(strict.pShare).toBe(0);
  });

  it('compares only the tasks both runs contain', () => {
    // b's extra task scores 0 and would lower b's accuracy if it were counted.
    expect(row(rows, 'accuracy', 'all')).toMatchObject({ a: 0.25, b: 0.75 + 0.25 * 0.5, units: 40 });
    expect(row(rows, 'accuracy', 'difficulty=easy').units).toBe(20);
  });

  it('compares no strict accuracy when each task has one sample (it would be pass@1)', () => {
    expect(row(rows, 'strict_accuracy', 'all')).toMatchObject({ diff: null, reason: 'one scored sample per task: strict accuracy equals pass@1' });
  });

  it('reports an absent metric with the reason', () => {
    // The comparison's n (the smaller run's) is below k: a reason of the comparison, not of run a.
    expect(row(rows, 'pass@10', 'all')).toMatchObject({ diff: null, pShare: null, reason: 'n=1 < k=10' });
  });

  it('reports a worsening when the runs are swapped', () => {
    const swapped = row(compareRuns(runB, runA, { scorer: 'io-tests', n: 1, seed: 9, iterations: 500 }), 'pass@1', 'all');
    expect(swapped.diff).toBe(-0.5);
    expect(swapped.ci_high).toBeLessThan(0);
  });

  it('reports no difference when the runs share no task', () => {
    const other = [codeSample('X', 'OK', 1, 1)];
    expect(row(compareRuns(runA, other, { scorer: 'io-tests', n: 1, seed: 1, iterations: 50 }), 'accuracy', 'all')).toMatchObject({
      diff: null,
      units: 0,
      reason: 'no units in both runs',
    });
  });

  it('pairs likert items and explains an undefined correlation', () => {
    const gold = [1, 2, 3, 4, 5, 2, 4, 1, 5, 3];
    const a = gold.map((g, i) => likertAnswer(`abstractness/${i}`, 'abstractness', 3, g, g / 5));
    const b = gold.map((g, i) => likertAnswer(`abstractness/${i}`, 'abstractness', g, g, g / 5));
    const likert = compareRuns(a, b, { scorer: 'likert', n: 1, seed: 2, iterations: 200 });
    expect(row(likert, 'pearson', 'subtask=abstractness')).toMatchObject({ a: null, b: 1, diff: null, reason: 'a: constant x', units: 10 });
    const acc = row(likert, 'accuracy', 'subtask=abstractness');
    expect(acc).toMatchObject({ a: 0.2, b: 1, units: 10 });
    expect(acc.diff).toBeCloseTo(0.8, 15);
    expect(acc.ci_low).toBeGreaterThan(0);
  });
});
