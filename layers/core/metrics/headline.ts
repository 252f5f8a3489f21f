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

/** The headline metric of a benchmark (`pass@1` for one not in {@link HEADLINE_METRICS}). */
export function headlineMetric(benchmark: string): string {
  return HEADLINE_METRICS[benchmark] ?? 'pass@1';
}

/**
 * The run-summary metric keys (`<metric>` or `<metric>/<slice>`) a benchmark's headline is
 * read from: one for most benchmarks, one per subtask for ABRICOT.
 * @example
 * headlineKeys('abricot'); // ['pearson/subtask=abstractness', 'pearson/subtask=inclusiveness']
 * headlineKeys('rocode');  // ['accuracy']
 */
export function headlineKeys(benchmark: string): string[] {
  const metric = headlineMetric(benchmark);
  const slices = HEADLINE_SLICES[benchmark];
  return slices ? slices.map((slice) => `${metric}/${slice}`) : [metric];
}
