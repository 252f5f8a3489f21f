/**
 * The aggregator: a run's records in, its metrics table out (DESIGN §5 metrics columns).
 */
import type { MetricRow, RunRecord, ScorerKind } from '../types.ts';
import { SCORER_REGISTRY, type ScorerRegistry } from './index.ts';
import { reportsOn, type ScorerPlan } from '../metrics/index.ts';
import { metricCI } from '../metrics/index.ts';
import { groupByTask, sliceRecords } from '../metrics/index.ts';

export interface ComputeOptions {
  runId: string;
  benchmark: string;
  model: string;
  scorer: ScorerKind;
  /** Samples per task the run drew; pass@k is absent where n < k. */
  n: number;
  /** Seeds every bootstrap interval. */
  seed: number;
  /** Bootstrap resamples (default 1000). */
  iterations?: number;
  /** Where `scorer` is looked up (default: the shipped scorer registry). */
  scorers?: ScorerRegistry;
}

function rowsOf<U>(plan: ScorerPlan<U>, records: readonly RunRecord[], opts: ComputeOptions): MetricRow[] {
  const head = { run_id: opts.runId, benchmark: opts.benchmark, model: opts.model };
  const slices = sliceRecords(records, plan.dimensions);
  const rows: MetricRow[] = [];
  for (const slice of slices) {
    const units = [...groupByTask(slice.records)].map(([taskId, group]) => plan.summarise(taskId, group));
    for (const metric of plan.metrics) {
      if (!reportsOn(metric, slice.name, slices.length)) continue;
      const measured = metric.evaluate(units);
      const base = { ...head, metric: metric.id, slice: slice.name, n: measured.n };
      if (measured.value === null) {
        rows.push({ ...base, value: null, ci_low: null, ci_high: null, reason: measured.reason });
        continue;
      }
      const ci = metricCI(metric, units, { seed: opts.seed, iterations: opts.iterations });
      rows.push({ ...base, value: measured.value, ci_low: ci.low, ci_high: ci.high, reason: null });
    }
  }
  return rows;
}

/**
 * Computes every metric of the scorer's plan from a run's records: slice `all` and one slice
 * per value of the scorer's dimensions; each value with a seeded bootstrap 95% interval
 * (resampling tasks, or items for likert) and `n` units. A metric that cannot be computed is a
 * row with value null and its reason. SE records count only towards `system_error_rate`.
 * @example
 * computeMetrics(records, { runId: 'r1', benchmark: 'abricot', model: 'reference', scorer: 'likert', n: 1, seed: 1 });
 */
export function computeMetrics(records: readonly RunRecord[], opts: ComputeOptions): MetricRow[] {
  return (opts.scorers ?? SCORER_REGISTRY)
    .byKind(opts.scorer)
    .plan(opts.n)
    .use((plan) => rowsOf(plan, records, opts));
}
