/**
 * Which metrics each scorer reports, over which units and slices. `computeMetrics` and
 * `compareRuns` both read these plans, so a run's table and a comparison never disagree.
 */
import type { RunRecord, ScorerKind } from '../types.ts';
import {
  accuracyOfUnits,
  accuracyRatio,
  compileErrorRateOfUnits,
  compileErrorRatio,
  passAtKOfUnits,
  passAtKRatio,
  strictAccuracyOfUnits,
  strictAccuracyRatio,
  summariseCodeTask,
  systemErrorRateOfUnits,
  systemErrorRatio,
  type CodeUnit,
} from './code-metrics.ts';
import {
  exactMatchOfUnits,
  exactMatchRatio,
  likertSystemErrorRateOfUnits,
  likertSystemErrorRatio,
  parseFailureRateOfUnits,
  parseFailureRatio,
  pearsonMeanOfUnits,
  pearsonOfUnits,
  spearmanOfUnits,
  summariseLikertItem,
  type LikertUnit,
} from './likert-metrics.ts';
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

/** A plan, tagged by its unit type. */
export type AnyPlan = { kind: 'code'; plan: ScorerPlan<CodeUnit> } | { kind: 'likert'; plan: ScorerPlan<LikertUnit> };

function pooled<U>(id: MetricId, evaluate: (units: readonly U[]) => Counted, ratio: (unit: U) => Ratio): MetricSpec<U> {
  return { id, evaluate, pooled: true, ratio };
}

function passAt(k: 1 | 5 | 10, n: number): MetricSpec<CodeUnit> {
  return pooled(`pass@${k}`, (units) => passAtKOfUnits(units, k, n), passAtKRatio(k));
}

/**
 * The plan of a scorer for a run of `n` samples per task.
 * @example
 * const p = planFor('io-tests', 10); // p.kind === 'code'; p.plan.metrics[0].id === 'accuracy'
 */
export function planFor(scorer: ScorerKind, n: number): AnyPlan {
  switch (scorer) {
    case 'io-tests':
      return {
        kind: 'code',
        plan: {
          dimensions: ['difficulty', 'split', 'language'],
          summarise: summariseCodeTask,
          metrics: [
            pooled('accuracy', accuracyOfUnits, accuracyRatio),
            pooled('strict_accuracy', strictAccuracyOfUnits, strictAccuracyRatio),
            passAt(1, n),
            passAt(10, n),
            pooled('compile_error_rate', compileErrorRateOfUnits, compileErrorRatio),
            pooled('system_error_rate', systemErrorRateOfUnits, systemErrorRatio),
          ],
        },
      };
    case 'unit-tests':
      return {
        kind: 'code',
        plan: {
          dimensions: ['language'],
          summarise: summariseCodeTask,
          metrics: [
            passAt(1, n),
            passAt(5, n),
            passAt(10, n),
            pooled('compile_error_rate', compileErrorRateOfUnits, compileErrorRatio),
            pooled('system_error_rate', systemErrorRateOfUnits, systemErrorRatio),
          ],
        },
      };
    case 'likert':
      return {
        kind: 'likert',
        plan: {
          dimensions: ['subtask'],
          summarise: summariseLikertItem,
          metrics: [
            { id: 'pearson', evaluate: pearsonOfUnits, pooled: false },
            { id: 'pearson_mean', evaluate: pearsonMeanOfUnits, pooled: false },
            { id: 'spearman', evaluate: spearmanOfUnits, pooled: false },
            { id: 'accuracy', evaluate: exactMatchOfUnits, pooled: false, ratio: exactMatchRatio },
            pooled('parse_failure_rate', parseFailureRateOfUnits, parseFailureRatio),
            pooled('system_error_rate', likertSystemErrorRateOfUnits, likertSystemErrorRatio),
          ],
        },
      };
    default: {
      const unknown: never = scorer;
      throw new Error(`unknown scorer ${String(unknown)}`);
    }
  }
}

/** Whether `metric` is reported on slice `name` among `sliceCount` slices. */
export function reportsOn<U>(metric: MetricSpec<U>, name: string, sliceCount: number): boolean {
  return metric.pooled || name !== 'all' || sliceCount === 1;
}
