import { describe, expect, it } from 'vitest';
import { bootstrapCI, groupByTask, mulberry32, pairedBootstrap, type MetricSpec } from '#core/metrics/index.ts';
import { planFor } from '#core/scorers/index.ts';
import { metricCI, metricPaired } from '#core/metrics/resample.ts';
import type { RunRecord, ScorerKind, Verdict } from '#core/types.ts';
import { codeSample, likertAnswer } from '../../support/records.ts';

const VERDICT_POOL: Verdict[] = ['OK', 'OK', 'WA', 'TLE', 'RE', 'CE', 'SE'];

function randomCodeRun(seed: number, tasks: number, n: number): RunRecord[] {
  const rand = mulberry32(seed);
  const records: RunRecord[] = [];
  for (let t = 0; t < tasks; t++) {
    for (let s = 0; s < n; s++) {
      const verdict = VERDICT_POOL[Math.floor(rand() * VERDICT_POOL.length)] as Verdict;
      const total = 1 + Math.floor(rand() * 6);
      const passed = verdict === 'OK' ? total : Math.floor(rand() * total);
      records.push(codeSample(`T${t}`, verdict, passed, total, { sample: s }));
    }
  }
  return records;
}

function randomLikertRun(seed: number, items: number): RunRecord[] {
  const rand = mulberry32(seed);
  return Array.from({ length: items }, (_, i) => {
    const gold = 1 + Math.floor(rand() * 5);
    const predicted = rand() < 0.15 ? null : 1 + Math.floor(rand() * 5);
    const record = likertAnswer(`abstractness/${i}`, 'abstractness', predicted, gold, (gold - 0.5) / 5);
    return rand() < 0.1 ? { ...record, verdict: 'SE' as const } : record;
  });
}

function unitsOf<U>(summarise: (id: string, r: readonly RunRecord[]) => U, records: RunRecord[]): Map<string, U> {
  return new Map([...groupByTask(records)].map(([id, group]) => [id, summarise(id, group)]));
}

function sortedValues<U>(units: Map<string, U>): U[] {
  return [...units.keys()].sort().flatMap((k) => {
    const unit = units.get(k);
    return unit === undefined ? [] : [unit];
  });
}

// Checks one plan's ratio metrics: the fast bootstrap path must agree with re-evaluating units.
function checkPlan<U>(metrics: readonly MetricSpec<U>[], units: U[], other: Map<string, U>, mine: Map<string, U>): void {
  for (const metric of metrics) {
    if (!metric.ratio) continue;
    const evaluated = metric.evaluate(units);
    const fast = metricCI(metric, units, { seed: 4, iterations: 300 });
    const slow = bootstrapCI(units, (u) => metric.evaluate(u).value, { seed: 4, iterations: 300 });
    expect(fast.estimate, metric.id).toBeCloseTo(evaluated.value as number, 12);
    expect(fast.low, metric.id).toBeCloseTo(slow.low as number, 12);
    expect(fast.high, metric.id).toBeCloseTo(slow.high as number, 12);
    const paired = metricPaired(metric, mine, other, { seed: 4, iterations: 300 });
    const pairedSlow = pairedBootstrap(mine, other, (u) => metric.evaluate(u).value, { seed: 4, iterations: 300 });
    expect(paired.a, metric.id).toBeCloseTo(evaluated.value as number, 12);
    expect(paired.diff, metric.id).toBeCloseTo(pairedSlow.diff as number, 12);
    expect(paired.low, metric.id).toBeCloseTo(pairedSlow.low as number, 12);
    expect(paired.high, metric.id).toBeCloseTo(pairedSlow.high as number, 12);
    expect(paired.pShare, metric.id).toBe(pairedSlow.pShare);
  }
}

describe('scorer plans', () => {
  it.each<[ScorerKind, number]>([
    ['io-tests', 10],
    ['unit-tests', 5],
  ])('bootstrap %s ratio metrics exactly as re-evaluating the resampled tasks', (scorer, n) => {
    planFor(scorer, n).use((plan) => {
      const mine = unitsOf(plan.summarise, randomCodeRun(1, 25, n));
      const other = unitsOf(plan.summarise, randomCodeRun(2, 25, n));
      checkPlan(plan.metrics, sortedValues(mine), other, mine);
    });
  });

  it('bootstraps likert ratio metrics exactly as re-evaluating the resampled items', () => {
    planFor('likert', 1).use((plan) => {
      const mine = unitsOf(plan.summarise, randomLikertRun(1, 40));
      const other = unitsOf(plan.summarise, randomLikertRun(2, 40));
      checkPlan(plan.metrics, sortedValues(mine), other, mine);
    });
  });

  it('resamples every code metric through its ratio form and likert correlations by re-evaluation', () => {
    const withoutRatio = (scorer: ScorerKind, n: number): string[] =>
      planFor(scorer, n).use((plan) => plan.metrics.filter((m) => m.ratio === undefined).map((m) => m.id));
    expect(withoutRatio('io-tests', 10)).toEqual([]);
    expect(withoutRatio('unit-tests', 10)).toEqual([]);
    expect(withoutRatio('likert', 1)).toEqual(['pearson', 'pearson_mean', 'spearman']);
  });
});
