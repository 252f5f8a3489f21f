/**
 * A benchmark's own metrics (RoCode's code-switching), computed by one function for the local
 * run and the cloud aggregate alike: the callers differ only in where the records, the tasks
 * and the resources come from.
 *
 * @example
 * const rows = await computeExtraMetrics(benchmark, { records, tasks, head, seed }, (needs) => loadBenchmarkResources(needs, { cacheDir }));
 */
import { HarnessError } from '../errors.ts';
import type { MetricRow, RunRecord, Task } from '../types.ts';
import type { AnyBenchmark } from './benchmark.ts';
import type { BenchmarkResources, ResourceId } from './description.ts';

export interface ExtraMetricsRun {
  records: readonly RunRecord[];
  /** The run's tasks (those without a record are left out here). */
  tasks: readonly Task[];
  head: Pick<MetricRow, 'run_id' | 'benchmark' | 'model'>;
  seed: number;
}

/** Loads what a benchmark's metrics need (layers/sources implements it). */
export type ResourceLoader = (needs: readonly ResourceId[]) => Promise<Partial<BenchmarkResources>>;

/**
 * The benchmark's own metric rows for a run (none when it declares none; resources are then
 * never loaded).
 * @throws HarnessError when the benchmark returns a metric id it did not declare.
 */
export async function computeExtraMetrics(benchmark: AnyBenchmark, run: ExtraMetricsRun, load: ResourceLoader): Promise<MetricRow[]> {
  const extra = benchmark.extraMetrics;
  if (!extra) return [];
  const evaluated = new Set(run.records.map((r) => r.task_id));
  const tasks = run.tasks.filter((t) => evaluated.has(t.id));
  const resources = extra.needs.length > 0 ? await load(extra.needs) : {};
  const rows = extra.compute({ records: run.records, tasks, head: run.head, seed: run.seed }, resources);
  const undeclared = rows.find((r) => !extra.ids.includes(r.metric));
  if (undeclared)
    throw new HarnessError(`benchmark ${benchmark.id} computed metric "${undeclared.metric}" it does not declare (declared: ${extra.ids.join(', ')})`);
  return rows;
}
