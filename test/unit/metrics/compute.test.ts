import { describe, expect, it } from 'vitest';
import { computeMetrics, type ComputeOptions } from '#core/scorers/index.ts';
import type { MetricRow, RunRecord } from '#core/types.ts';
import { codeSample, likertAnswer } from '../../support/records.ts';

function row(rows: MetricRow[], metric: string, slice: string): MetricRow {
  const found = rows.find((r) => r.metric === metric && r.slice === slice);
  if (!found) throw new Error(`no row ${metric} / ${slice}`);
  return found;
}

function expectIntervalsAroundValues(rows: MetricRow[]): void {
  for (const r of rows) {
    if (r.value === null) {
      expect(r.reason, `${r.metric}/${r.slice}`).toMatch(/\S/);
      expect([r.ci_low, r.ci_high]).toEqual([null, null]);
    } else {
      expect(r.ci_low, `${r.metric}/${r.slice}`).toBeLessThanOrEqual(r.value);
      expect(r.ci_high, `${r.metric}/${r.slice}`).toBeGreaterThanOrEqual(r.value);
    }
  }
}

describe('computeMetrics for io-tests', () => {
  // T1 easy python OK 3/3 · T2 easy cpp WA 1/2 · T3 hard python CE · T4 hard cpp SE
  const records: RunRecord[] = [
    codeSample('T1', 'OK', 3, 3, { difficulty: 'easy', language: 'python' }),
    codeSample('T2', 'WA', 1, 2, { difficulty: 'easy', language: 'cpp' }),
    codeSample('T3', 'CE', 0, 4, { difficulty: 'hard', language: 'python' }),
    codeSample('T4', 'SE', 0, 4, { difficulty: 'hard', language: 'cpp' }),
  ];
  const opts: ComputeOptions = { runId: 'r1', benchmark: 'rocode', model: 'm', scorer: 'io-tests', n: 1, seed: 7, iterations: 200 };
  const rows = computeMetrics(records, opts);

  it('reports slice all, then difficulty, split and language slices', () => {
    expect([...new Set(rows.map((r) => r.slice))]).toEqual(['all', 'difficulty=easy', 'difficulty=hard', 'split=test', 'language=cpp', 'language=python']);
    expect(rows.filter((r) => r.slice === 'all').map((r) => r.metric)).toEqual([
      'accuracy',
      'strict_accuracy',
      'pass@1',
      'pass@10',
      'compile_error_rate',
      'system_error_rate',
    ]);
  });

  it('computes the hand-computed values over tasks with SE samples excluded', () => {
    expect(row(rows, 'accuracy', 'all')).toMatchObject({ value: 0.5, n: 3, run_id: 'r1', benchmark: 'rocode', model: 'm' });
    // One sample per task: strict accuracy would equal pass@1, so it is absent.
    expect(row(rows, 'strict_accuracy', 'all')).toMatchObject({ value: null, reason: 'one scored sample per task: strict accuracy equals pass@1' });
    expect(row(rows, 'pass@1', 'all').value).toBeCloseTo(1 / 3, 15);
    expect(row(rows, 'compile_error_rate', 'all').value).toBeCloseTo(1 / 3, 15);
    expect(row(rows, 'system_error_rate', 'all')).toMatchObject({ value: 0.25, n: 4 });
    expect(row(rows, 'accuracy', 'difficulty=easy')).toMatchObject({ value: 0.75, n: 2 });
    expect(row(rows, 'accuracy', 'difficulty=hard')).toMatchObject({ value: 0, n: 1 });
    expect(row(rows, 'compile_error_rate', 'difficulty=hard').value).toBe(1);
    expect(row(rows, 'accuracy', 'language=cpp')).toMatchObject({ value: 0.5, n: 1 });
  });

  it('reports pass@10 absent with its reason when n < 10', () => {
    expect(row(rows, 'pass@10', 'all')).toMatchObject({ value: null, ci_low: null, ci_high: null, reason: 'n=1 < k=10' });
  });

  it('gives every value a bootstrap interval around it and every absence a reason', () => {
    expectIntervalsAroundValues(rows);
  });

  it('reproduces the same table from the same seed', () => {
    expect(computeMetrics(records, opts)).toEqual(rows);
  });

  it("with the paper's 10 samples, strict accuracy (APPS: every sample passes) differs from pass@1 and pass@10", () => {
    // P1: 10 of 10 samples pass · P2: 3 of 10 · P3: none.
    const samples = (task: string, ok: number) =>
      Array.from({ length: 10 }, (_, i) => (i < ok ? codeSample(task, 'OK', 2, 2, { sample: i }) : codeSample(task, 'WA', 1, 2, { sample: i })));
    const ten = computeMetrics([...samples('P1', 10), ...samples('P2', 3), ...samples('P3', 0)], { ...opts, n: 10 });
    expect(row(ten, 'strict_accuracy', 'all').value).toBeCloseTo(1 / 3, 15);
    expect(row(ten, 'pass@1', 'all').value).toBeCloseTo((1 + 0.3 + 0) / 3, 15);
    expect(row(ten, 'pass@10', 'all').value).toBeCloseTo(2 / 3, 15);
  });
});

describe('computeMetrics for unit-tests', () => {
  const records: RunRecord[] = [
    ...[0, 1, 2, 3, 4].map((s) => codeSample('K1', s < 2 ? 'OK' : 'WA', s < 2 ? 1 : 0, 1, { sample: s, language: 'kotlin' })),
    ...[0, 1, 2, 3, 4].map((s) => codeSample('K2', s === 0 ? 'CE' : 'RE', 0, 1, { sample: s, language: 'kotlin' })),
  ];
  const rows = computeMetrics(records, { runId: 'r2', benchmark: 'kotlin', model: 'm', scorer: 'unit-tests', n: 5, seed: 1, iterations: 200 });

  it('reports pass@k for k up to n and absent beyond', () => {
    expect(row(rows, 'pass@1', 'all')).toMatchObject({ value: expect.closeTo(0.2, 15), n: 2 });
    expect(row(rows, 'pass@5', 'all')).toMatchObject({ value: 0.5, n: 2 });
    expect(row(rows, 'pass@10', 'all')).toMatchObject({ value: null, reason: 'n=5 < k=10' });
    expect(row(rows, 'compile_error_rate', 'all').value).toBeCloseTo(0.1, 15);
    expectIntervalsAroundValues(rows);
  });

  it('slices by language only', () => {
    expect([...new Set(rows.map((r) => r.slice))]).toEqual(['all', 'language=kotlin']);
    expect(rows.some((r) => r.metric === 'accuracy')).toBe(false);
  });
});

describe('computeMetrics for likert', () => {
  const gold = [1, 2, 3, 4, 5, 3];
  const records: RunRecord[] = [
    ...gold.map((g, i) => likertAnswer(`abstractness/${i}`, 'abstractness', g, g, (g - 0.5) / 5)),
    likertAnswer('abstractness/unparsed', 'abstractness', null, 2, 0.3),
    // Inclusiveness: the model always answers 3.
    ...gold.map((g, i) => likertAnswer(`inclusiveness/${i}`, 'inclusiveness', 3, g, (g - 0.5) / 5)),
  ];
  const rows = computeMetrics(records, { runId: 'r3', benchmark: 'abricot', model: 'm', scorer: 'likert', n: 1, seed: 3, iterations: 200 });

  it('reports correlations and accuracy per subtask, never pooled over subtasks', () => {
    const allMetrics = rows.filter((r) => r.slice === 'all').map((r) => r.metric);
    expect(allMetrics).toEqual(['parse_failure_rate', 'system_error_rate']);
    expect(rows.filter((r) => r.slice === 'subtask=abstractness').map((r) => r.metric)).toEqual([
      'pearson',
      'pearson_mean',
      'spearman',
      'accuracy',
      'parse_failure_rate',
      'system_error_rate',
    ]);
  });

  it('leaves unparseable answers out of correlations and counts them wrong for accuracy', () => {
    expect(row(rows, 'pearson', 'subtask=abstractness')).toMatchObject({ value: 1, n: 6 });
    expect(row(rows, 'pearson_mean', 'subtask=abstractness').value).toBeCloseTo(1, 12);
    expect(row(rows, 'spearman', 'subtask=abstractness')).toMatchObject({ value: 1, n: 6 });
    expect(row(rows, 'accuracy', 'subtask=abstractness')).toMatchObject({ value: 6 / 7, n: 7 });
    expect(row(rows, 'parse_failure_rate', 'subtask=abstractness')).toMatchObject({ value: 1 / 7, n: 7 });
    expect(row(rows, 'parse_failure_rate', 'all')).toMatchObject({ value: 1 / 13, n: 13 });
  });

  it('reports a correlation over constant predictions as absent, not zero', () => {
    expect(row(rows, 'pearson', 'subtask=inclusiveness')).toMatchObject({ value: null, reason: 'constant x', n: 6 });
    expect(row(rows, 'spearman', 'subtask=inclusiveness')).toMatchObject({ value: null, reason: 'constant x' });
    expect(row(rows, 'accuracy', 'subtask=inclusiveness').value).toBeCloseTo(2 / 6, 15);
    expectIntervalsAroundValues(rows);
  });

  it('reports pooled correlations when records carry no subtask', () => {
    const plain = gold.map((g, i) => ({ ...likertAnswer(`item/${i}`, 'x', g, g, g / 5), subtask: null }));
    const plainRows = computeMetrics(plain, { runId: 'r4', benchmark: 'likert', model: 'm', scorer: 'likert', n: 1, seed: 1, iterations: 50 });
    expect(row(plainRows, 'pearson', 'all')).toMatchObject({ value: 1, n: 6 });
  });

  it('excludes SE records from every metric but the system-error rate', () => {
    const withSe = [...records, { ...likertAnswer('abstractness/broken', 'abstractness', 1, 5, 0.9), verdict: 'SE' as const }];
    const seRows = computeMetrics(withSe, { runId: 'r5', benchmark: 'abricot', model: 'm', scorer: 'likert', n: 1, seed: 3, iterations: 50 });
    expect(row(seRows, 'pearson', 'subtask=abstractness')).toMatchObject({ value: 1, n: 6 });
    expect(row(seRows, 'accuracy', 'subtask=abstractness')).toMatchObject({ value: 6 / 7, n: 7 });
    expect(row(seRows, 'system_error_rate', 'subtask=abstractness')).toMatchObject({ value: 1 / 8, n: 8 });
  });
});

describe('computeMetrics on an empty run', () => {
  it('reports every metric absent with a reason', () => {
    const rows = computeMetrics([], { runId: 'r0', benchmark: 'b', model: 'm', scorer: 'io-tests', n: 10, seed: 1 });
    expect(rows.map((r) => r.slice)).toEqual(Array(6).fill('all'));
    for (const r of rows) expect(r).toMatchObject({ value: null, n: 0, reason: expect.stringMatching(/no (tasks|samples)/) });
  });
});
