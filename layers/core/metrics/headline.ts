/**
 * The headline metric of each benchmark: the one number a leaderboard ranks by and a
 * summary table shows first. One definition for the local leaderboard, the end-of-run
 * summary and Athena's leaderboard SQL.
 */

/**
 * Headline metric per benchmark id. A benchmark not listed falls back to `pass@1`.
 * @example
 * headlineMetric('abricot'); // 'pearson'
 */
export const HEADLINE_METRICS: Readonly<Record<string, string>> = {
  rocode: 'accuracy',
  'kotlin-humaneval': 'pass@1',
  abricot: 'pearson',
};

/**
 * Benchmarks whose headline metric exists only per slice: ABRICOT's correlations are
 * computed per subtask (as in the paper), never over both subtasks pooled.
 */
export const HEADLINE_SLICES: Readonly<Record<string, readonly string[]>> = {
  abricot: ['subtask=abstractness', 'subtask=inclusiveness'],
};

/**
 * The slices a benchmark's headline is read from: its {@link HEADLINE_SLICES}, else `all`.
 * @example
 * headlineSlices('abricot'); // ['subtask=abstractness', 'subtask=inclusiveness']
 * headlineSlices('rocode');  // ['all']
 */
export function headlineSlices(benchmark: string): readonly string[] {
  return HEADLINE_SLICES[benchmark] ?? ['all'];
}

/** The headline metric of a benchmark (`pass@1` for one not in {@link HEADLINE_METRICS}). */
export function headlineMetric(benchmark: string): string {
  return HEADLINE_METRICS[benchmark] ?? 'pass@1';
}

/**
 * The run-summary metric keys (`<metric>` or `<metric>/<slice>`) a benchmark's headline is
 * read from: one for most benchmarks, one per subtask for ABRICOT. `metric` is the run's
 * protocol headline when it has one (a protocol names the metric its source reports first).
 * @example
 * headlineKeys('abricot'); // ['pearson/subtask=abstractness', 'pearson/subtask=inclusiveness']
 * headlineKeys('abricot', 'accuracy'); // ['accuracy/subtask=abstractness', 'accuracy/subtask=inclusiveness']
 * headlineKeys('rocode', 'pass@1');  // ['pass@1']
 */
export function headlineKeys(benchmark: string, metric: string = headlineMetric(benchmark)): string[] {
  const slices = headlineSlices(benchmark);
  return slices.map((slice) => (slice === 'all' ? metric : `${metric}/${slice}`));
}
