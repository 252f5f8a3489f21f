import { describe, expect, it } from 'vitest';
import { accuracyOfUnits, compileErrorRateOfUnits, groupByTask, strictAccuracyOfUnits, summariseCodeTask, type Counted } from '#core/metrics/index.ts';
import type { RunRecord } from '#core/types.ts';
import { codeSample } from '../../support/records.ts';

/** A code metric over per-task groups of records, as the metric plans compute it, with the SE samples it excluded. */
function overGroups(metric: (units: ReturnType<typeof summariseCodeTask>[]) => Counted) {
  return (groups: readonly (readonly RunRecord[])[]) => {
    const units = groups.map((g) => summariseCodeTask(g[0]?.task_id ?? '', g));
    return { ...metric(units), excluded: units.reduce((s, u) => s + u.se, 0) };
  };
}
const accuracy = overGroups(accuracyOfUnits);
const strictAccuracy = overGroups(strictAccuracyOfUnits);
const compileErrorRate = overGroups(compileErrorRateOfUnits);

// Task A (4 tests): OK 4/4, WA 2/4, CE            → best 1,   not strict, 1 CE of 3
// Task B (5 tests): WA 1/5, TLE 3/5, SE (5/5!)     → best 3/5, strict 0,   0 CE of 2, 1 SE
// Task C (2 tests): SE, SE                         → no scored sample, 2 SE
const records = [
  codeSample('A', 'OK', 4, 4),
  codeSample('A', 'WA', 2, 4),
  codeSample('A', 'CE', 0, 4),
  codeSample('B', 'WA', 1, 5),
  codeSample('B', 'TLE', 3, 5),
  codeSample('B', 'SE', 5, 5),
  codeSample('C', 'SE', 0, 2),
  codeSample('C', 'SE', 0, 2),
];
const groups = [...groupByTask(records).values()];

describe('code metrics', () => {
  it('averages the best sample fraction over tasks with a scored sample', () => {
    expect(accuracy(groups)).toEqual({ value: (1 + 3 / 5) / 2, n: 2, excluded: 3 });
  });

  it('counts a task only when every scored sample passes every test (APPS print_results: np.all over generations and tests)', () => {
    // Task A: 1 of its 3 scored samples passes every test; task B: none. Neither counts.
    expect(strictAccuracy(groups)).toEqual({ value: 0, n: 2, excluded: 3 });
    const allPass = [[codeSample('E', 'OK', 3, 3), codeSample('E', 'OK', 3, 3)], ...groups];
    expect(strictAccuracy(allPass)).toEqual({ value: 1 / 3, n: 3, excluded: 3 });
  });

  it('is absent when no task has two scored samples: it would be pass@1 under a second name', () => {
    const single = [[codeSample('F', 'OK', 2, 2)], [codeSample('G', 'WA', 1, 2)]];
    expect(strictAccuracy(single)).toMatchObject({ value: null, reason: 'one scored sample per task: strict accuracy equals pass@1' });
  });

  it('counts compile errors over scored samples only', () => {
    expect(compileErrorRate(groups)).toEqual({ value: 1 / 5, n: 2, excluded: 3 });
  });

  it('ignores the tests an SE sample claims to have passed', () => {
    const onlyB = [groups[1] ?? []];
    expect(accuracy(onlyB).value).toBeCloseTo(3 / 5, 15);
    expect(strictAccuracy(onlyB).value).toBe(0);
  });

  it('reports absence with the SE count when every sample was SE', () => {
    const onlyC = [groups[2] ?? []];
    expect(accuracy(onlyC)).toEqual({ value: null, reason: 'no scored samples (2 SE excluded)', n: 0, excluded: 2 });
    expect(strictAccuracy(onlyC).value).toBeNull();
    expect(compileErrorRate(onlyC).value).toBeNull();
  });

  it('reports absence when there are no tasks', () => {
    expect(accuracy([])).toEqual({ value: null, reason: 'no tasks', n: 0, excluded: 0 });
  });

  it('scores a task without tests by its verdict', () => {
    const noTests = [[codeSample('D', 'WA', 0, 0), codeSample('D', 'OK', 0, 0)]];
    expect(accuracy(noTests).value).toBe(1);
    expect(strictAccuracy(noTests).value).toBe(0);
    expect(strictAccuracy([[codeSample('D', 'OK', 0, 0), codeSample('D', 'OK', 0, 0)]]).value).toBe(1);
  });

  it('gives a compiled-out sample no credit even if tests_passed says otherwise', () => {
    expect(accuracy([[codeSample('E', 'CE', 3, 4)]]).value).toBe(0);
  });
});
