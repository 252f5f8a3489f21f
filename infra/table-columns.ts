/**
 * Glue column types of the `records` and `metrics` tables. The mapped types make `tsc` fail when
 * a field of `RunRecord`/`MetricRow` (layers/core/types.ts) is added, removed or renamed without
 * this file following. `benchmark` and `run_id` are partition columns: they live in the S3 path
 * (`benchmark=<b>/run_id=<r>/`), not in the parquet files, so they are excluded here.
 */
import type { MetricRow, RunRecord } from '../layers/core/types.ts';

/** Hive/Athena types used by the tables. */
export type GlueType = 'string' | 'int' | 'bigint' | 'double' | 'boolean' | 'timestamp';

/** Partition columns, in path order. */
export const PARTITION_COLUMNS = ['benchmark', 'run_id'] as const;
type PartitionColumn = (typeof PARTITION_COLUMNS)[number];

/** One `records` row per scored sample; types follow the parquet writer's physical types. */
export const RECORD_COLUMN_TYPES: { [K in Exclude<keyof RunRecord, PartitionColumn>]-?: GlueType } = {
  split: 'string',
  model: 'string',
  provider: 'string',
  task_id: 'string',
  sample: 'bigint',
  language: 'string',
  difficulty: 'string',
  subtask: 'string',
  verdict: 'string',
  tests_passed: 'bigint',
  tests_total: 'bigint',
  compile_ms: 'double',
  run_ms: 'double',
  peak_memory_kb: 'double',
  prompt_tokens: 'bigint',
  completion_tokens: 'bigint',
  predicted: 'double',
  gold: 'double',
  gold_mean: 'double',
  answer: 'string',
  error: 'string',
  created_at: 'string',
};

/** One `metrics` row per (metric, slice); `reason` explains a null `value`. */
export const METRIC_COLUMN_TYPES: { [K in Exclude<keyof MetricRow, PartitionColumn>]-?: GlueType } = {
  model: 'string',
  metric: 'string',
  slice: 'string',
  value: 'double',
  ci_low: 'double',
  ci_high: 'double',
  n: 'bigint',
  reason: 'string',
};

/** `{ name, type }` list in declaration order, as Glue's StorageDescriptor wants it. */
export function glueColumns(types: Record<string, GlueType>): { name: string; type: GlueType }[] {
  return Object.entries(types).map(([name, type]) => ({ name, type }));
}
