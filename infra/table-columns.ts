/**
 * Glue column types of the `records` and `metrics` tables, taken from the one column list
 * the Parquet writer uses (layers/core/run/columns.ts), so the Glue tables can never drift
 * from the files. `benchmark` and `run_id` are partition columns: they live in the S3 path
 * (`benchmark=<b>/run_id=<r>/`), not in the Parquet files.
 */
import { METRIC_COLUMNS, PARTITION_COLUMNS as CORE_PARTITIONS, RECORD_COLUMNS, glueType } from '../layers/core/columns.ts';

/** Hive/Athena types used by the tables. */
export type GlueType = 'string' | 'int' | 'bigint' | 'double' | 'boolean' | 'timestamp';

/** Partition columns, in path order. */
export const PARTITION_COLUMNS = CORE_PARTITIONS;

/** One `records` row per scored sample; types follow the Parquet writer's physical types. */
export const RECORD_COLUMN_TYPES: Record<string, GlueType> = Object.fromEntries(RECORD_COLUMNS.map((c) => [c.name, glueType(c.type)]));

/** One `metrics` row per (metric, slice); `reason` explains a null `value`. */
export const METRIC_COLUMN_TYPES: Record<string, GlueType> = Object.fromEntries(METRIC_COLUMNS.map((c) => [c.name, glueType(c.type)]));

/** `{ name, type }` list in declaration order, as Glue's StorageDescriptor wants it. */
export function glueColumns(types: Record<string, GlueType>): { name: string; type: GlueType }[] {
  return Object.entries(types).map(([name, type]) => ({ name, type }));
}
