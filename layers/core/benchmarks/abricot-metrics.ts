/**
 * ABRICOT's own metrics, per subtask (the correlations are never pooled across subtasks):
 *
 * - `pearson_across_word` / `pearson_within_word` (see likert-words.ts), intervals resampling words;
 * - `pearson_domain`: Pearson's r against the discretised gold (the paper's metric) within one
 *   source of the sentences (the `domain` column: OpenSubtitles, WikiHow), slice
 *   `subtask=<s>,domain=<d>`, interval resampling items;
 * - `word_gold_mean`, `word_gold_std`, `word_pred_mean`, `word_pred_std`: the paper's Table 1
 *   columns for each word and the predictions' beside them, slice `subtask=<s>,word=<w>`,
 *   n = the word's contexts (no interval: they describe, they do not estimate);
 * - `pearson_subtask_diff`: Pearson's r of inclusiveness minus that of abstractness over the
 *   rows judged on both, slice `contrast=inclusiveness-abstractness`, with a paired bootstrap
 *   interval (each resample draws the same rows for both subtasks, as `compare` pairs runs).
 */
import { likertAnalysesSection } from '../html/index.ts';
import type { ExtraMetrics } from './description.ts';
import type { LikertTask, MetricRow, RunRecord } from '../types.ts';
import { bootstrapCI, pairedBootstrap } from '../metrics/index.ts';
import { pearson } from '../metrics/index.ts';
import { acrossWordPearson, withinWordPearson, withWordInterval, wordOf, wordStats, type WordContext, type WordGroup } from '../metrics/index.ts';

/** One evaluated item: its word, domain and mean parsed prediction. */
export interface ScoredItem extends WordContext {
  subtask: string;
  /** The dataset row (both subtasks of one row share it). */
  itemId: string;
  word: string;
  domain: string | null;
  /** The discretised gold. */
  gold: number;
}

export const ABRICOT_METRIC_IDS = [
  'pearson_across_word',
  'pearson_within_word',
  'pearson_domain',
  'word_gold_mean',
  'word_gold_std',
  'word_pred_mean',
  'word_pred_std',
  'pearson_subtask_diff',
] as const;

/** Items with at least one parsed answer (SE and unparseable answers left out, as for `pearson`). */
export function scoredItems(records: readonly RunRecord[], tasks: readonly LikertTask[]): ScoredItem[] {
  const predictions = new Map<string, number[]>();
  for (const r of records) {
    if (r.verdict === 'SE' || r.predicted === null) continue;
    const list = predictions.get(r.task_id) ?? [];
    list.push(r.predicted);
    predictions.set(r.task_id, list);
  }
  const items: ScoredItem[] = [];
  for (const t of tasks) {
    const p = predictions.get(t.id);
    if (!p || p.length === 0) continue;
    items.push({
      subtask: t.subtask,
      itemId: t.itemId,
      word: wordOf(t),
      domain: t.slices.domain ?? null,
      gold: t.gold,
      goldMean: t.goldMean,
      predicted: p.reduce((s, x) => s + x, 0) / p.length,
    });
  }
  return items;
}

function groupsOf(items: readonly ScoredItem[]): WordGroup[] {
  const byWord = new Map<string, WordContext[]>();
  for (const i of items) {
    const list = byWord.get(i.word);
    const context = { predicted: i.predicted, goldMean: i.goldMean };
    if (list) list.push(context);
    else byWord.set(i.word, [context]);
  }
  return [...byWord].map(([word, contexts]) => ({ word, contexts }));
}

type Head = Pick<MetricRow, 'run_id' | 'benchmark' | 'model'>;

function row(
  head: Head,
  metric: string,
  slice: string,
  m: { value: number | null; low?: number | null; high?: number | null; n: number; reason?: string },
): MetricRow {
  return {
    ...head,
    metric,
    slice,
    value: m.value,
    ci_low: m.low ?? null,
    ci_high: m.high ?? null,
    n: m.n,
    reason: m.value === null ? (m.reason ?? 'undefined') : null,
  };
}

/** Every ABRICOT analysis row of a run (see the file header). */
export function abricotAnalysisRows(items: readonly ScoredItem[], head: Head, seed: number, iterations?: number): MetricRow[] {
  const rows: MetricRow[] = [];
  for (const subtask of [...new Set(items.map((i) => i.subtask))].sort()) {
    const mine = items.filter((i) => i.subtask === subtask);
    const groups = groupsOf(mine);
    const slice = `subtask=${subtask}`;
    rows.push(row(head, 'pearson_across_word', slice, withWordInterval(groups, acrossWordPearson, seed, iterations)));
    rows.push(row(head, 'pearson_within_word', slice, withWordInterval(groups, withinWordPearson, seed, iterations)));
    for (const domain of [...new Set(mine.map((i) => i.domain).filter((d): d is string => d !== null))].sort()) {
      const inDomain = mine.filter((i) => i.domain === domain);
      const r = (units: readonly ScoredItem[]) =>
        pearson(
          units.map((u) => u.predicted),
          units.map((u) => u.gold),
        );
      const estimate = r(inDomain);
      const ci = estimate.value === null ? null : bootstrapCI(inDomain, (u) => r(u).value, { seed, ...(iterations ? { iterations } : {}) });
      rows.push(row(head, 'pearson_domain', `${slice},domain=${domain}`, { ...estimate, low: ci?.low ?? null, high: ci?.high ?? null, n: inDomain.length }));
    }
    for (const w of wordStats(groups)) {
      const ws = `${slice},word=${w.word}`;
      rows.push(row(head, 'word_gold_mean', ws, { value: w.goldMean, n: w.contexts }));
      rows.push(row(head, 'word_gold_std', ws, { value: w.goldStd, n: w.contexts, reason: 'one context' }));
      rows.push(row(head, 'word_pred_mean', ws, { value: w.predMean, n: w.contexts }));
      rows.push(row(head, 'word_pred_std', ws, { value: w.predStd, n: w.contexts, reason: 'one context' }));
    }
  }
  rows.push(subtaskContrast(items, head, seed, iterations));
  return rows;
}

const pearsonOf = (units: readonly ScoredItem[]): number | null =>
  pearson(
    units.map((u) => u.predicted),
    units.map((u) => u.gold),
  ).value;

/** Pearson of inclusiveness − Pearson of abstractness, paired by row (see the file header). */
function subtaskContrast(items: readonly ScoredItem[], head: Head, seed: number, iterations?: number): MetricRow {
  const by = (subtask: string) => new Map(items.filter((i) => i.subtask === subtask).map((i) => [i.itemId, i]));
  const paired = pairedBootstrap(by('abstractness'), by('inclusiveness'), pearsonOf, { seed, ...(iterations ? { iterations } : {}) });
  const reason = paired.units === 0 ? 'no row judged on both subtasks' : 'Pearson undefined on a subtask (constant predictions or gold)';
  return row(head, 'pearson_subtask_diff', 'contrast=inclusiveness-abstractness', {
    value: paired.diff,
    low: paired.low,
    high: paired.high,
    n: paired.units,
    reason,
  });
}

/** The analyses as ABRICOT's own metrics (computed alike for local runs and cloud aggregates). */
export const ABRICOT_METRICS: ExtraMetrics<LikertTask> = {
  ids: ABRICOT_METRIC_IDS,
  needs: [],
  compute: (input) => abricotAnalysisRows(scoredItems(input.records, input.tasks), input.head, input.seed),
  report: likertAnalysesSection,
  // The subtask contrast is one row the generic table lists ("measured on one slice"); the section shows the rest.
  reportIds: ABRICOT_METRIC_IDS.filter((id) => id !== 'pearson_subtask_diff'),
};
