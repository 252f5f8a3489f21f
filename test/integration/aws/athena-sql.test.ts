// The SQL shipped for Athena runs unchanged on DuckDB, over Parquet files written by the real
// writer into the hive layout of DESIGN §5 — and the column lists match the domain types.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetricRow, RunRecord } from '#core/types.ts';
import { keys } from '#core/run/keys.ts';
import { encodeMetrics } from '#core/run/parquet.ts';
import { DuckDbResultsQuery } from '#local/index.ts';
import { METRIC_COLUMNS, PARTITION_KEYS, RECORD_COLUMNS, leaderboardSql, sliceMetricsSql, sqlString } from '#aws/index.ts';
import { makeRecord } from '../../support/records.ts';

let root: string;
let query: DuckDbResultsQuery;

function metric(benchmark: string, runId: string, model: string, name: string, slice: string, value: number | null): MetricRow {
  return {
    run_id: runId,
    benchmark,
    model,
    metric: name,
    slice,
    value,
    ci_low: value === null ? null : value - 0.1,
    ci_high: value === null ? null : value + 0.1,
    n: 20,
    reason: value === null ? 'empty slice' : null,
  };
}

const RUNS: MetricRow[][] = [
  [metric('rocode', 'run-a', 'm1', 'accuracy', 'all', 0.5), metric('rocode', 'run-a', 'm1', 'pass@1', 'all', 0.9)],
  [
    metric('rocode', 'run-b', 'm1', 'accuracy', 'all', 0.7),
    metric('rocode', 'run-b', 'm1', 'accuracy', 'difficulty=hard', 0.95),
    metric('rocode', 'run-b', 'm1', 'accuracy', 'difficulty=easy', 0.8),
    metric('rocode', 'run-b', 'm1', 'pass@10', 'all', null),
    metric('rocode', 'run-b', 'm1', 'compile_error_rate', 'all', 0.05),
  ],
  [metric('rocode', 'run-c', 'm2', 'accuracy', 'all', 0.6)],
  [metric('rocode', 'run-d', 'm3', 'accuracy', 'all', null)],
  [metric('rocode', 'run-e', 'm4', 'accuracy', 'all', 0.4)],
  [metric('rocode', 'run-f', 'm4', 'accuracy', 'all', 0.4)],
  [metric('kotlin-humaneval', 'run-k', 'm1', 'accuracy', 'all', 0.99), metric('kotlin-humaneval', 'run-k', 'm1', 'pass@1', 'all', 0.85)],
  // ABRICOT: Pearson exists per subtask only (its headline slices), never pooled over `all`.
  [
    metric('abricot', 'run-x', 'm1', 'pearson', 'subtask=abstractness', 0.31),
    metric('abricot', 'run-x', 'm1', 'pearson', 'subtask=inclusiveness', 0.52),
    metric('abricot', 'run-x', 'm1', 'accuracy', 'all', 0.4),
  ],
  [metric('abricot', 'run-y', 'm1', 'pearson', 'subtask=abstractness', 0.35), metric('abricot', 'run-y', 'm1', 'pearson', 'subtask=inclusiveness', 0.48)],
  [metric('abricot', 'run-z', 'm2', 'pearson', 'subtask=abstractness', 0.2)],
];

async function writeMetrics(dir: string, rows: MetricRow[]): Promise<void> {
  const first = rows[0];
  if (first === undefined) return;
  const path = join(dir, keys.metrics(first.benchmark, first.run_id));
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, encodeMetrics(rows));
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'polyeval-athena-sql-'));
  for (const rows of RUNS) await writeMetrics(root, rows);
  query = await DuckDbResultsQuery.open(root);
});

afterAll(async () => {
  await query?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('shipped SQL on DuckDB', () => {
  it('ranks each model by its best headline value, latest run winning a tie, nulls left out', async () => {
    const rows = await query.sql(leaderboardSql('rocode'));

    expect(rows).toEqual([
      { model: 'm1', run_id: 'run-b', value: 0.7, ci_low: expect.closeTo(0.6, 9), ci_high: expect.closeTo(0.8, 9), n: 20, runs: 2 },
      { model: 'm2', run_id: 'run-c', value: 0.6, ci_low: expect.closeTo(0.5, 9), ci_high: expect.closeTo(0.7, 9), n: 20, runs: 1 },
      { model: 'm4', run_id: 'run-f', value: 0.4, ci_low: expect.closeTo(0.3, 9), ci_high: expect.closeTo(0.5, 9), n: 20, runs: 2 },
    ]);
  });

  it("uses the benchmark's headline metric, or the metric it is given", async () => {
    const headline = await query.sql(leaderboardSql('kotlin-humaneval'));
    const chosen = await query.sql(leaderboardSql('rocode', { metric: 'pass@1' }));

    expect(headline.map((row) => [row.model, row.value])).toEqual([['m1', 0.85]]);
    expect(chosen.map((row) => [row.model, row.run_id, row.value])).toEqual([['m1', 'run-a', 0.9]]);
  });

  it('ranks ABRICOT on its headline slices, one row per model and subtask, as the local leaderboard does', async () => {
    const rows = await query.sql(leaderboardSql('abricot'));
    const oneSlice = await query.sql(leaderboardSql('abricot', { slice: 'subtask=inclusiveness' }));

    expect(rows.map((row) => [row.model, row.slice, row.run_id, row.value, row.runs])).toEqual([
      ['m1', 'subtask=abstractness', 'run-y', 0.35, 2],
      ['m2', 'subtask=abstractness', 'run-z', 0.2, 1],
      ['m1', 'subtask=inclusiveness', 'run-x', 0.52, 2],
    ]);
    expect(oneSlice.map((row) => [row.model, row.run_id, row.value])).toEqual([['m1', 'run-x', 0.52]]);
  });

  it("lists one run's metrics per slice, `all` first, absent values with their reason", async () => {
    const rows = await query.sql(sliceMetricsSql('run-b'));

    expect(rows.map((row) => [row.metric, row.slice, row.value, row.reason])).toEqual([
      ['accuracy', 'all', 0.7, null],
      ['accuracy', 'difficulty=easy', 0.8, null],
      ['accuracy', 'difficulty=hard', 0.95, null],
      ['compile_error_rate', 'all', 0.05, null],
      ['pass@10', 'all', null, 'empty slice'],
    ]);
    expect(rows.every((row) => row.benchmark === 'rocode' && row.model === 'm1')).toBe(true);
  });

  it('escapes quotes in string literals', async () => {
    const rows = await query.sql(`SELECT ${sqlString("it's a 'quoted' run")} AS s`);

    expect(rows).toEqual([{ s: "it's a 'quoted' run" }]);
  });

  it('binds values as parameters, so a quote in a value is data, not SQL', async () => {
    const rows = await query.sql({ text: 'SELECT count(*)::INTEGER AS n FROM metrics WHERE run_id = ?', params: ["run-a' OR '1'='1"] });

    expect(rows).toEqual([{ n: 0 }]);
  });

  it('keeps a numeric-looking run id as text through the recommended DuckDB view', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'polyeval-athena-sql-num-'));
    await writeMetrics(dir, [metric('rocode', '20250501', 'm9', 'accuracy', 'all', 0.3)]);
    const local = await DuckDbResultsQuery.open(dir);
    try {
      const board = await local.sql(leaderboardSql('rocode'));
      const slices = await local.sql(sliceMetricsSql('20250501'));

      expect(board.map((row) => row.run_id)).toEqual(['20250501']);
      expect(slices.map((row) => [row.metric, row.value])).toEqual([['accuracy', 0.3]]);
    } finally {
      await local.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('table columns', () => {
  const record: RunRecord = makeRecord({
    run_id: 'r',
    benchmark: 'b',
    model: 'm',
    task_id: 't',
    tests_passed: 1,
    tests_total: 1,
    created_at: '2025-01-01T00:00:00.000Z',
  });
  const metricRow: Required<MetricRow> = metric('b', 'r', 'm', 'accuracy', 'all', 1) as Required<MetricRow>;
  const partitions = PARTITION_KEYS.map((key) => key.name);

  it('are every field of RunRecord and MetricRow except the partition keys, which come last from the path', () => {
    expect(partitions).toEqual(['benchmark', 'run_id']);
    expect(RECORD_COLUMNS.map((c) => c.name).sort()).toEqual(
      Object.keys(record)
        .filter((k) => !partitions.includes(k))
        .sort(),
    );
    expect(METRIC_COLUMNS.map((c) => c.name).sort()).toEqual(
      Object.keys(metricRow)
        .filter((k) => !partitions.includes(k))
        .sort(),
    );
  });

  it('give every column a Glue type', () => {
    const glueTypes = new Set(['string', 'int', 'bigint', 'double', 'boolean', 'timestamp']);

    expect([...RECORD_COLUMNS, ...METRIC_COLUMNS, ...PARTITION_KEYS].every((c) => glueTypes.has(c.glueType))).toBe(true);
  });
});
