/**
 * The Athena side of the `records` and `metrics` tables (DESIGN §5) and the SQL we ship over
 * them. The columns themselves are defined once, in `layers/core/run/columns.ts` (the Parquet
 * writer encodes with them); this file gives them the shape infra's Glue tables take, so the
 * writer, Glue and the local DuckDB views cannot drift apart.
 *
 * Partitioning — every writer and reader follows it:
 * - Files live at `results/<table>/benchmark=<b>/run_id=<r>/<file>.parquet`.
 * - `benchmark` and `run_id` are hive partition columns: they come from the path and are NOT
 *   columns of the Parquet files. A file that also held them would make DuckDB and Athena
 *   disagree (duplicate column / schema mismatch), so the writer leaves them out.
 * - {@link RECORD_COLUMNS} / {@link METRIC_COLUMNS} are the file columns, in file order;
 *   {@link PARTITION_KEYS} follow them in the table (Glue appends partition keys last) and
 *   are typed `string` in the partition projection.
 * - DuckDB reads with `hive_types_autocast = false` (layers/local/duckdb-results-query.ts):
 *   otherwise a run id like `20240501` becomes a number locally while Athena keeps text.
 *
 * `created_at` is ISO-8601 UTC text (`string`), as in RunRecord: it sorts chronologically as
 * text, and `from_iso8601_timestamp` (Athena) / `CAST(… AS TIMESTAMP)` (DuckDB) convert it.
 *
 * Shipped queries use only what Trino and DuckDB share: CTEs, window functions, standard
 * comparisons, `CASE`, `ORDER BY`. Values are `?` parameters of a {@link SqlStatement} (DuckDB
 * prepared statements, Athena `ExecutionParameters`), only in WHERE clauses as Athena requires.
 */
import { headlineMetric, headlineSlices } from '#core/benchmarks/index.ts';
import type { SqlStatement } from '#core/ports.ts';
import {
  METRIC_COLUMNS as CORE_METRIC_COLUMNS,
  PARTITION_COLUMNS,
  RECORD_COLUMNS as CORE_RECORD_COLUMNS,
  glueType as toGlueType,
  type Column,
} from '../core/columns.ts';

/** Glue column types the tables use (`bigint`/`timestamp` reserved for future columns). */
export type GlueType = 'string' | 'int' | 'bigint' | 'double' | 'boolean' | 'timestamp';

export interface ColumnSpec {
  name: string;
  glueType: GlueType;
}

function toSpec(column: Column): ColumnSpec {
  return { name: column.name, glueType: toGlueType(column.type) };
}

/** Hive partition columns of both tables, in path order. */
export const PARTITION_KEYS: readonly ColumnSpec[] = PARTITION_COLUMNS.map((name) => ({ name, glueType: 'string' }));

/** File columns of `records` (RunRecord minus the partition keys), in file order. */
export const RECORD_COLUMNS: readonly ColumnSpec[] = CORE_RECORD_COLUMNS.map(toSpec);

/** File columns of `metrics` (MetricRow minus the partition keys), in file order. */
export const METRIC_COLUMNS: readonly ColumnSpec[] = CORE_METRIC_COLUMNS.map(toSpec);

/** Where each table's files live, relative to the store root (DESIGN §5). */
export const TABLE_PREFIXES = { records: 'results/records/', metrics: 'results/metrics/' } as const;

/** A SQL string literal: single quotes doubled (standard SQL; Trino and DuckDB agree). */
export function sqlString(value: string): string {
  if (value.includes('\u0000')) throw new RangeError('a SQL string literal cannot contain NUL');
  return `'${value.replaceAll("'", "''")}'`;
}

/** Athena's longest query string, in UTF-8 bytes (StartQueryExecution `QueryString`). */
export const ATHENA_MAX_QUERY_BYTES = 262_144;

/** Options of {@link leaderboardSql}. */
export interface LeaderboardOptions {
  metric?: string;
  slice?: string;
  /**
   * The runs to rank (their `run_id` partition values). Required on Athena, where `run_id` is
   * an injected projection key: a query that does not name its values with static equality
   * fails with CONSTRAINT_VIOLATION. Omitted, every run is ranked (DuckDB, over local files).
   */
  runIds?: readonly string[];
}

/**
 * Best value per model of a benchmark's headline metric on its headline slice(s) (`all`, or
 * ABRICOT's two subtasks: headlineSlices) unless a slice is named, with the run that achieved
 * it (ties: the latest run id) and how many runs the model has.
 * Columns: model, run_id, value, ci_low, ci_high, n, runs — best first; with several headline
 * slices one row per model and slice, a `slice` column after `model`, ordered by slice.
 * @throws RangeError when `runIds` is given empty (no run to rank: SQL has no empty IN list).
 */
export function leaderboardSql(benchmark: string, options: LeaderboardOptions = {}): SqlStatement {
  const metric = options.metric ?? headlineMetric(benchmark);
  const slices = options.slice === undefined ? headlineSlices(benchmark) : [options.slice];
  if (options.runIds !== undefined && options.runIds.length === 0) throw new RangeError('leaderboardSql: runIds is empty; there is nothing to rank');
  const runIds = options.runIds ?? [];
  const runFilter = options.runIds === undefined ? '' : `\n    AND run_id IN (${runIds.map(() => '?').join(', ')})`;
  const [only] = slices;
  if (slices.length === 1 && only !== undefined) {
    const text = `WITH candidates AS (
  SELECT model, run_id, value, ci_low, ci_high, n,
         ROW_NUMBER() OVER (PARTITION BY model ORDER BY value DESC, run_id DESC) AS position,
         CAST(COUNT(*) OVER (PARTITION BY model) AS INTEGER) AS runs
  FROM metrics
  WHERE benchmark = ?${runFilter}
    AND metric = ?
    AND slice = ?
    AND value IS NOT NULL
)
SELECT model, run_id, value, ci_low, ci_high, n, runs
FROM candidates
WHERE position = 1
ORDER BY value DESC, model ASC`;
    return { text, params: [benchmark, ...runIds, metric, only] };
  }
  const text = `WITH candidates AS (
  SELECT model, slice, run_id, value, ci_low, ci_high, n,
         ROW_NUMBER() OVER (PARTITION BY model, slice ORDER BY value DESC, run_id DESC) AS position,
         CAST(COUNT(*) OVER (PARTITION BY model, slice) AS INTEGER) AS runs
  FROM metrics
  WHERE benchmark = ?${runFilter}
    AND metric = ?
    AND slice IN (${slices.map(() => '?').join(', ')})
    AND value IS NOT NULL
)
SELECT model, slice, run_id, value, ci_low, ci_high, n, runs
FROM candidates
WHERE position = 1
ORDER BY slice ASC, value DESC, model ASC`;
  return { text, params: [benchmark, ...runIds, metric, ...slices] };
}

/**
 * Every metric of one run, per slice (`all` first), absent values included with their reason.
 * Columns: benchmark, model, metric, slice, value, ci_low, ci_high, n, reason.
 */
export function sliceMetricsSql(runId: string): SqlStatement {
  const text = `SELECT benchmark, model, metric, slice, value, ci_low, ci_high, n, reason
FROM metrics
WHERE run_id = ?
ORDER BY metric ASC, CASE WHEN slice = 'all' THEN 0 ELSE 1 END ASC, slice ASC`;
  return { text, params: [runId] };
}
