/**
 * The shape of a scorer's metric plan: which metrics it reports, over which units and slices.
 * Each scorer declares its plan in its own file (layers/core/scorers/); `computeMetrics` and
 * `compareRuns` both read it, so a run's table and a comparison never disagree.
 */
import type { RunRecord } from '../types.ts';
import { passAtKOfUnits, passAtKRatio, type CodeUnit } from './code-metrics.ts';
import type { Counted, Ratio } from './measured.ts';
import type { MetricId } from './metric-ids.ts';
import type { SliceDimension } from './slices.ts';

/** One metric of a plan, evaluated on a list of units (tasks or items). */
export interface MetricSpec<U> {
  id: MetricId;
  evaluate(units: readonly U[]): Counted;
  /**
   * False for metrics that only make sense within one slice of a dimension (ABRICOT's
   * correlations pool two unrelated scales otherwise): they skip `all` when other slices exist.
   */
  pooled: boolean;
  /**
   * For a metric that is a ratio of per-unit sums, each unit's numerator and denominator:
   * the bootstrap then resamples plain numbers instead of re-evaluating units. Must agree
   * with `evaluate` (a test checks every plan).
   */
  ratio?: (unit: U) => Ratio;
}

/** How one scorer's records become metric values. */
export interface ScorerPlan<U> {
  /** Slice dimensions after `all`, in report order. */
  dimensions: readonly SliceDimension[];
  /** Reduces one task's records to a bootstrap unit. */
  summarise(taskId: string, records: readonly RunRecord[]): U;
  metrics: readonly MetricSpec<U>[];
}

/**
 * A plan of any unit type: `use` hands the plan to a function generic in its unit, so
 * `computeMetrics` and `compareRuns` take every scorer's plan without knowing its units.
 */
export interface AnyPlan {
  use<R>(f: <U>(plan: ScorerPlan<U>) => R): R;
}

/**
 * Wraps a scorer's plan.
 * @example
 * const p = anyPlan({ dimensions: ['language'], summarise, metrics }); p.use((plan) => plan.metrics.length);
 */
export function anyPlan<U>(plan: ScorerPlan<U>): AnyPlan {
  return { use: (f) => f(plan) };
}

/** A metric reported on every slice, `all` included, resampled through its ratio form. */
export function pooled<U>(id: MetricId, evaluate: (units: readonly U[]) => Counted, ratio: (unit: U) => Ratio): MetricSpec<U> {
  return { id, evaluate, pooled: true, ratio };
}

/** pass@k over code units, for a run of `n` samples per task. */
export function passAt(k: 1 | 5 | 10, n: number): MetricSpec<CodeUnit> {
  return pooled(`pass@${k}`, (units) => passAtKOfUnits(units, k, n), passAtKRatio(k));
}

/** Whether `metric` is reported on slice `name` among `sliceCount` slices. */
export function reportsOn<U>(metric: MetricSpec<U>, name: string, sliceCount: number): boolean {
  return metric.pooled || name !== 'all' || sliceCount === 1;
}
