/**
 * The metrics library (DESIGN §6): estimators, correlations, bootstrap intervals, and the
 * aggregator that turns a run's records into its metrics table. Pure: no I/O.
 */
export { absent, present, ratioOf, type Counted, type Measured, type Ratio } from './measured.ts';
export { passAtK } from './pass-at-k.ts';
export { averageRanks, pearson, spearman } from './correlation.ts';
export { exactMatch } from './exact-match.ts';
export { mulberry32, type Random } from './prng.ts';
export {
  bootstrapCI,
  bootstrapIndexed,
  commonKeys,
  pairedBootstrap,
  pairedBootstrapIndexed,
  quantile,
  type BootstrapOptions,
  type BootstrapResult,
  type IndexedStatistic,
  type PairedResult,
  type Statistic,
} from './bootstrap.ts';
export { accuracyOfUnits, compileErrorRateOfUnits, strictAccuracyOfUnits, summariseCodeTask, type CodeUnit } from './code-metrics.ts';
export { summariseLikertItem, type LikertAnswer, type LikertUnit } from './likert-metrics.ts';
export { type MetricId } from './metric-ids.ts';
export { ALL_SLICE, groupByTask, sliceRecords, type Slice, type SliceDimension } from './slices.ts';
export { anyPlan, type AnyPlan, type MetricSpec, type ScorerPlan } from './plans.ts';
export { metricCI, metricPaired } from './resample.ts';
export { acrossWordPearson, withinWordPearson, withWordInterval, wordOf, wordStats, type WordContext, type WordGroup } from './likert-words.ts';
export { accuracyRatio, compileErrorRatio, strictAccuracyRatio, systemErrorRateOfUnits, systemErrorRatio } from './code-metrics.ts';
export { passAt, pooled, reportsOn } from './plans.ts';
export {
  exactMatchOfUnits,
  exactMatchRatio,
  likertSystemErrorRateOfUnits,
  likertSystemErrorRatio,
  parseFailureRateOfUnits,
  parseFailureRatio,
  pearsonMeanOfUnits,
  pearsonOfUnits,
  spearmanOfUnits,
} from './likert-metrics.ts';
