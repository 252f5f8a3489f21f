/**
 * Bootstrap intervals of a plan's metric. A ratio metric sums its per-unit numerators and
 * denominators straight from the resample's indices; other metrics (correlations) re-evaluate
 * the resampled units.
 */
import {
  bootstrapCI,
  bootstrapIndexed,
  commonKeys,
  pairedBootstrap,
  pairedBootstrapIndexed,
  type BootstrapOptions,
  type BootstrapResult,
  type IndexedStatistic,
  type PairedResult,
} from './bootstrap.ts';
import type { Ratio } from './measured.ts';
import type { MetricSpec } from './plans.ts';

function ratioStatistic<U>(units: readonly U[], ratio: (unit: U) => Ratio): IndexedStatistic {
  const nums = new Float64Array(units.length);
  const dens = new Float64Array(units.length);
  units.forEach((u, i) => {
    [nums[i], dens[i]] = ratio(u);
  });
  return (indices) => {
    let num = 0;
    let den = 0;
    for (let i = 0; i < indices.length; i++) {
      const j = indices[i] as number;
      num += nums[j] as number;
      den += dens[j] as number;
    }
    return den === 0 ? null : num / den;
  };
}

/** The seeded bootstrap interval of `metric` over `units`. */
export function metricCI<U>(metric: MetricSpec<U>, units: readonly U[], opts: BootstrapOptions): BootstrapResult {
  if (!metric.ratio) return bootstrapCI(units, (u) => metric.evaluate(u).value, opts);
  const statistic = ratioStatistic(units, metric.ratio);
  const all = Int32Array.from({ length: units.length }, (_, i) => i);
  return bootstrapIndexed(units.length, statistic(all), statistic, opts);
}

/** The paired bootstrap of `metric` between two runs' units, matched by task id. */
export function metricPaired<U>(metric: MetricSpec<U>, a: ReadonlyMap<string, U>, b: ReadonlyMap<string, U>, opts: BootstrapOptions): PairedResult {
  if (!metric.ratio) return pairedBootstrap(a, b, (u) => metric.evaluate(u).value, opts);
  const keys = commonKeys(a, b);
  const unitsA = keys.map((k) => a.get(k) as U);
  const unitsB = keys.map((k) => b.get(k) as U);
  // A metric its own definition leaves absent (strict accuracy with one sample per task) is
  // not compared through its ratio either.
  if (metric.evaluate(unitsA).value === null || metric.evaluate(unitsB).value === null) {
    return { a: null, b: null, diff: null, low: null, high: null, pShare: null, units: keys.length };
  }
  return pairedBootstrapIndexed(keys.length, ratioStatistic(unitsA, metric.ratio), ratioStatistic(unitsB, metric.ratio), opts);
}
