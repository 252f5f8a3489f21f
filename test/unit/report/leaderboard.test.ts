import { describe, expect, it } from 'vitest';
import { buildLeaderboard, type LeaderboardRun } from '#core/report/leaderboard.ts';

function run(over: Partial<LeaderboardRun> & { run_id: string; model: string; value: number | null }): LeaderboardRun {
  const { value, ...rest } = over;
  return {
    benchmark: 'rocode',
    dataset: 'sample/rocode',
    language: null,
    protocol: null,
    items: 10,
    cost_usd: 0.5,
    date: '2026-11-30T10:00:00.000Z',
    metrics: {
      accuracy:
        value === null ? { value: null, ci_low: null, ci_high: null, n: 0, reason: 'empty' } : { value, ci_low: value - 0.1, ci_high: value + 0.1, n: 9 },
    },
    ...rest,
  };
}

describe('buildLeaderboard', () => {
  it('keeps the best run per model, best model first, counting the runs', () => {
    const rows = buildLeaderboard([
      run({ run_id: 'r1', model: 'a', value: 0.4 }),
      run({ run_id: 'r2', model: 'a', value: 0.7 }),
      run({ run_id: 'r3', model: 'b', value: 0.9 }),
    ]);
    expect(rows.map((r) => [r.model, r.run_id, r.value, r.runs])).toEqual([
      ['b', 'r3', 0.9, 1],
      ['a', 'r2', 0.7, 2],
    ]);
    expect(rows[0]).toMatchObject({ metric: 'accuracy', ci_low: 0.8, ci_high: 1, n: 9, items: 10, cost_usd: 0.5 });
  });

  it('breaks ties by the latest run and lists a model without the metric last, with the reason', () => {
    const rows = buildLeaderboard([
      run({ run_id: 'old', model: 'a', value: 0.5, date: '2026-11-01T00:00:00.000Z' }),
      run({ run_id: 'new', model: 'a', value: 0.5, date: '2026-11-02T00:00:00.000Z' }),
      run({ run_id: 'x', model: 'c', value: null }),
    ]);
    expect(rows.map((r) => r.run_id)).toEqual(['new', 'x']);
    expect(rows[1]).toMatchObject({ value: null, reason: 'empty' });
  });

  it('keeps datasets and languages on separate boards and filters by benchmark or dataset', () => {
    const runs = [
      run({ run_id: 'c', model: 'a', value: 0.2, language: 'c' }),
      run({ run_id: 'py', model: 'a', value: 0.8, language: 'python' }),
      run({ run_id: 'full', model: 'a', value: 0.3, dataset: 'rocode' }),
      run({
        run_id: 'ab',
        model: 'a',
        value: 0.1,
        benchmark: 'abricot',
        dataset: 'sample/abricot',
        metrics: { 'pearson/subtask=abstractness': { value: 0.6, ci_low: 0.5, ci_high: 0.7, n: 26 } },
      }),
    ];
    expect(buildLeaderboard(runs, { benchmark: 'rocode' }).map((r) => r.run_id)).toEqual(['full', 'c', 'py']);
    expect(buildLeaderboard(runs, { benchmark: 'sample/rocode' }).map((r) => r.run_id)).toEqual(['c', 'py']);
    const abricot = buildLeaderboard(runs, { benchmark: 'abricot' });
    expect(abricot.every((r) => r.protocol === null)).toBe(true);
    expect(abricot.map((r) => [r.metric, r.value])).toEqual([
      ['pearson/subtask=abstractness', 0.6],
      ['pearson/subtask=inclusiveness', null],
    ]);
  });

  it("ranks a run by its protocol's headline and keeps protocols on separate boards", () => {
    const likert = (run_id: string, protocol: string, headline: string, value: number): LeaderboardRun => ({
      ...run({ run_id, model: 'm', value: null, benchmark: 'abricot', dataset: 'sample/abricot' }),
      protocol,
      headline,
      metrics: {
        [`${headline}/subtask=abstractness`]: { value, ci_low: value, ci_high: value, n: 26 },
        [`${headline}/subtask=inclusiveness`]: { value, ci_low: value, ci_high: value, n: 26 },
      },
    });
    const rows = buildLeaderboard([likert('p', 'paper', 'pearson', 0.4), likert('c', 'calamita', 'accuracy', 0.9)]);
    expect(rows.map((r) => [r.protocol, r.metric, r.run_id])).toEqual([
      ['calamita', 'accuracy/subtask=abstractness', 'c'],
      ['calamita', 'accuracy/subtask=inclusiveness', 'c'],
      ['paper', 'pearson/subtask=abstractness', 'p'],
      ['paper', 'pearson/subtask=inclusiveness', 'p'],
    ]);
  });
});
