/**
 * The `records` and `metrics` tables (DESIGN §5), each written once as a zod schema: the
 * TypeScript types (`RunRecord`, `MetricRow`), the Parquet columns in file order and the
 * Glue/Athena types over them are all derived from it. A new record column is one line here.
 * `benchmark` and `run_id` are hive partition columns: they come from the path, never from
 * the file, so DuckDB and Athena agree on them.
 */
import { z } from 'zod';

/** Outcome of scoring one sample (or one test of it). `SE` is the harness's own fault. */
export const VERDICTS = ['OK', 'WA', 'TLE', 'MLE', 'OLE', 'RE', 'CE', 'SE'] as const;
export const VerdictSchema = z.enum(VERDICTS);

const text = z.string();
const count = z.number().int();
const real = z.number();

/** One row per scored sample (DESIGN §5): the single source of truth for every metric. */
export const RunRecordSchema = z.object({
  run_id: text,
  benchmark: text,
  split: text,
  model: text,
  provider: text,
  task_id: text,
  sample: count.min(0),
  language: text.nullable(),
  difficulty: text.nullable(),
  /** Extra slice columns are kept in the item JSON; the table keeps `subtask`. */
  subtask: text.nullable(),
  verdict: VerdictSchema,
  tests_passed: count,
  tests_total: count,
  compile_ms: real.nullable(),
  run_ms: real.nullable(),
  peak_memory_kb: real.nullable(),
  prompt_tokens: count.nullable(),
  completion_tokens: count.nullable(),
  predicted: real.nullable(),
  gold: real.nullable(),
  gold_mean: real.nullable(),
  answer: text,
  error: text.nullable(),
  created_at: text,
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

/** A metric value, or its absence with a reason (never a silent zero). */
export const MetricRowSchema = z.object({
  run_id: text,
  benchmark: text,
  model: text,
  metric: text,
  /** `all` or `<dimension>=<value>` (e.g. `subtask=abstractness`, `difficulty=easy`). */
  slice: text,
  value: real.nullable(),
  ci_low: real.nullable(),
  ci_high: real.nullable(),
  n: count,
  /** Why `value` is null. */
  reason: text.nullable().optional(),
});
export type MetricRow = z.infer<typeof MetricRowSchema>;

export type ColumnType = 'string' | 'int' | 'double';

export interface Column {
  name: string;
  type: ColumnType;
}

export const PARTITION_COLUMNS = ['benchmark', 'run_id'] as const;

function unwrap(field: z.ZodType): z.ZodType {
  return field instanceof z.ZodOptional || field instanceof z.ZodNullable ? unwrap(field.unwrap() as z.ZodType) : field;
}

/** The column type of one schema field: strings and enums are `string`, integers `int`, other numbers `double`. */
function columnType(name: string, field: z.ZodType): ColumnType {
  const inner = unwrap(field);
  if (inner instanceof z.ZodString || inner instanceof z.ZodEnum) return 'string';
  if (inner instanceof z.ZodNumber) return inner.format === 'safeint' ? 'int' : 'double';
  throw new Error(`column ${name}: no table type for this schema field`);
}

/** The file columns of a table schema, in schema order, without the partition columns. */
function fileColumns(schema: z.ZodObject): readonly Column[] {
  const partition: readonly string[] = PARTITION_COLUMNS;
  return Object.entries(schema.shape)
    .filter(([name]) => !partition.includes(name))
    .map(([name, field]) => ({ name, type: columnType(name, field as z.ZodType) }));
}

export const RECORD_COLUMNS: readonly Column[] = fileColumns(RunRecordSchema);
export const METRIC_COLUMNS: readonly Column[] = fileColumns(MetricRowSchema);

/** Glue/Athena type of a column. */
export function glueType(type: ColumnType): 'string' | 'int' | 'double' {
  return type;
}
