/**
 * Comparing two runs on the same benchmark: per metric and slice, the paired bootstrap
 * difference b − a over the units present in both runs (`polyeval compare`).
 */
import type { RunRecord, ScorerKind } from '../types.ts';
import type { MetricId } from '../metrics/index.ts';
import { planFor } from './index.ts';
import { reportsOn, type MetricSpec, type ScorerPlan } from '../metrics/index.ts';
import { metricPaired } from '../metrics/index.ts';
import { ALL_SLICE, groupByTask, sliceRecords } from '../metrics/index.ts';

export interface CompareOptions {
  scorer: ScorerKind;
  /** Samples per task; the smaller of the two runs' n (pass@k needs both runs to have k). */
  n: number;
  seed: number;
  iterations?: number;
}

/** One metric on one slice, compared between run a and run b. */
export interface CompareRow {
  metric: MetricId;
  slice: string;
  /** Each run's value over the units present in both. */
  a: number | null;
  b: number | null;
  /** b − a and its paired bootstrap 95% interval. */
  diff: number | null;
  ci_low: number | null;
  ci_high: number | null;
  /** Share of resamples whose difference has the opposite sign (see `pairedBootstrap`). */
  pShare: number | null;
  /** Units (tasks, or likert items) present in both runs. */
  units: number;
  /** Why diff is null. */
  reason: string | null;
}

function unitsByTask<U>(plan: ScorerPlan<U>, records: readonly RunRecord[]): Map<string, U> {
  const units = new Map<string, U>();
  for (const [taskId, group] of groupByTask(records)) units.set(taskId, plan.summarise(taskId, group));
  return units;
}

function whyAbsent<U>(metric: MetricSpec<U>, a: Map<string, U>, b: Map<string, U>, units: number): string {
  if (units === 0) return 'no units in both runs';
  const common = [...a.keys()].filter((k) => b.has(k));
  const [ma, mb] = [a, b].map((run) => metric.evaluate(common.map((k) => run.get(k) as U)));
  // The same reason for both runs (e.g. the comparison's n, the smaller of the two, below k)
  // belongs to the comparison, not to one run.
  if (ma?.value === null && mb?.value === null && ma.reason === mb.reason) return ma.reason;
  if (ma?.value === null) return `a: ${ma.reason}`;
  if (mb?.value === null) return `b: ${mb.reason}`;
  return 'no resample defined the statistic';
}

function compareWith<U>(plan: ScorerPlan<U>, a: readonly RunRecord[], b: readonly RunRecord[], opts: CompareOptions): CompareRow[] {
  const slicesA = new Map(sliceRecords(a, plan.dimensions).map((s) => [s.name, s.records]));
  const slicesB = new Map(sliceRecords(b, plan.dimensions).map((s) => [s.name, s.records]));
  const rest = [...new Set([...slicesA.keys(), ...slicesB.keys()])].filter((name) => name !== ALL_SLICE).sort();
  const names = [ALL_SLICE, ...rest];
  const rows: CompareRow[] = [];
  for (const name of names) {
    const ua = unitsByTask(plan, slicesA.get(name) ?? []);
    const ub = unitsByTask(plan, slicesB.get(name) ?? []);
    for (const metric of plan.metrics) {
      if (!reportsOn(metric, name, names.length)) continue;
      const r = metricPaired(metric, ua, ub, { seed: opts.seed, iterations: opts.iterations });
      const reason = r.diff === null ? whyAbsent(metric, ua, ub, r.units) : null;
      rows.push({ metric: metric.id, slice: name, a: r.a, b: r.b, diff: r.diff, ci_low: r.low, ci_high: r.high, pShare: r.pShare, units: r.units, reason });
    }
  }
  return rows;
}

/**
 * Compares run b against run a per metric and slice with a paired bootstrap over the units
 * both runs contain (tasks for code, items for likert). Rows follow the scorer's plan order.
 * @example
 * compareRuns(recordsA, recordsB, { scorer: 'likert', n: 1, seed: 1 }); // [{ metric: 'pearson', slice: 'subtask=abstractness', diff: 0.1, … }]
 */
export function compareRuns(a: readonly RunRecord[], b: readonly RunRecord[], opts: CompareOptions): CompareRow[] {
  return planFor(opts.scorer, opts.n).use((plan) => compareWith(plan, a, b, opts));
}
