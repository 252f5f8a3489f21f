/**
 * The columns of the `records` and `metrics` tables (DESIGN §5), in file order, with the
 * Parquet type written and the Glue/Athena type declared over it. `benchmark` and `run_id`
 * are hive partition columns: they come from the path, never from the file, so DuckDB and
 * Athena agree on them.
 */
export type ColumnType = 'string' | 'int' | 'double';

export interface Column {
  name: string;
  type: ColumnType;
}

export const PARTITION_COLUMNS = ['benchmark', 'run_id'] as const;

export const RECORD_COLUMNS: readonly Column[] = [
  { name: 'split', type: 'string' },
  { name: 'model', type: 'string' },
  { name: 'provider', type: 'string' },
  { name: 'task_id', type: 'string' },
  { name: 'sample', type: 'int' },
  { name: 'language', type: 'string' },
  { name: 'difficulty', type: 'string' },
  { name: 'subtask', type: 'string' },
  { name: 'verdict', type: 'string' },
  { name: 'tests_passed', type: 'int' },
  { name: 'tests_total', type: 'int' },
  { name: 'compile_ms', type: 'double' },
  { name: 'run_ms', type: 'double' },
  { name: 'peak_memory_kb', type: 'double' },
  { name: 'prompt_tokens', type: 'int' },
  { name: 'completion_tokens', type: 'int' },
  { name: 'predicted', type: 'double' },
  { name: 'gold', type: 'double' },
  { name: 'gold_mean', type: 'double' },
  { name: 'answer', type: 'string' },
  { name: 'error', type: 'string' },
  { name: 'created_at', type: 'string' },
];

export const METRIC_COLUMNS: readonly Column[] = [
  { name: 'model', type: 'string' },
  { name: 'metric', type: 'string' },
  { name: 'slice', type: 'string' },
  { name: 'value', type: 'double' },
  { name: 'ci_low', type: 'double' },
  { name: 'ci_high', type: 'double' },
  { name: 'n', type: 'int' },
  { name: 'reason', type: 'string' },
];

/** Glue/Athena type of a column. */
export function glueType(type: ColumnType): 'string' | 'int' | 'double' {
  return type;
}
