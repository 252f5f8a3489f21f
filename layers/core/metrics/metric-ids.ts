/**
 * The ids of every metric polyeval reports. Ids are stable: they are column values in the
 * metrics table and keys of the CLI's `--json` output.
 */

/** A metric id. */
export type MetricId =
  | 'accuracy'
  | 'strict_accuracy'
  | 'pass@1'
  | 'pass@5'
  | 'pass@10'
  | 'compile_error_rate'
  | 'system_error_rate'
  | 'pearson'
  | 'pearson_mean'
  | 'spearman'
  | 'parse_failure_rate';
