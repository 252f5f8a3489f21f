/**
 * The headline metric of each benchmark: the one number a leaderboard ranks by and a
 * summary table shows first. Each protocol declares it once (`settings.headline`); a
 * benchmark's is its default protocol's, read from its slices (`headlineSlices`). This module
 * reads it for the local leaderboard, the end-of-run summary and Athena's leaderboard SQL.
 */
import { defaultProtocol } from '../benchmarks/protocol.ts';
import { BENCHMARK_REGISTRY, type BenchmarkRegistry } from '../benchmarks/registry.ts';

/** The metric of a benchmark not in the registry. */
const FALLBACK = 'pass@1';

/**
 * The headline metric of a benchmark (`pass@1` for one not in the registry).
 * @example
 * headlineMetric('abricot'); // 'pearson'
 */
export function headlineMetric(benchmark: string, registry: BenchmarkRegistry = BENCHMARK_REGISTRY): string {
  const found = registry.find(benchmark);
  return found ? defaultProtocol(found.protocols).settings.headline : FALLBACK;
}

/**
 * The slices a benchmark's headline is read from: those its file declares (ABRICOT's two
 * subtasks), else `all`. The local leaderboard (headlineKeys) and Athena's leaderboard SQL
 * both rank on these.
 * @example
 * headlineSlices('abricot'); // ['subtask=abstractness', 'subtask=inclusiveness']
 * headlineSlices('rocode');  // ['all']
 */
export function headlineSlices(benchmark: string, registry: BenchmarkRegistry = BENCHMARK_REGISTRY): readonly string[] {
  return registry.find(benchmark)?.headlineSlices ?? ['all'];
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
export function headlineKeys(benchmark: string, metric?: string, registry: BenchmarkRegistry = BENCHMARK_REGISTRY): string[] {
  const chosen = metric ?? headlineMetric(benchmark, registry);
  return headlineSlices(benchmark, registry).map((slice) => (slice === 'all' ? chosen : `${chosen}/${slice}`));
}
