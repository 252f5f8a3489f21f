/**
 * ABRICOT's central question (paper §5): do models order *different words* by abstractness
 * and inclusiveness, but not *the contexts of one word*? Items are grouped by word (lemma, else
 * target token) and the correlation is split in two:
 *
 * - **across words**: Pearson's r between each word's mean prediction and its mean human
 *   score (one point per word);
 * - **within word**: for each word, Pearson's r between its contexts' predictions and their
 *   human means, averaged over the words where it is defined (≥ 2 contexts, neither side
 *   constant). A model that only knows words has r ≈ 0 here.
 *
 * Both use the continuous human mean (the discretised gold is often constant within a word).
 * Intervals resample words (the clusters), never single items. Per-word statistics are the
 * columns of the paper's Table 1 (mean and std of the human scores over a word's contexts)
 * with the same two numbers for the predictions beside them; std is the sample std (n − 1).
 */
import { bootstrapCI } from './bootstrap.ts';
import { pearson } from './correlation.ts';
import { absent, present, type Counted } from './measured.ts';

/** The word a likert item is about: its lemma when the row gives one, else its target token (case-folded). */
export function wordOf(task: { lemma?: string; target: string }): string {
  return (task.lemma ?? task.target).trim().toLocaleLowerCase('it');
}

/** One scored context of a word. */
export interface WordContext {
  /** Mean prediction over the item's parsed answers. */
  predicted: number;
  /** The human mean on [0, 1]. */
  goldMean: number;
}

/** A word and its scored contexts. */
export interface WordGroup {
  word: string;
  contexts: WordContext[];
}

/** Table 1's columns for one word, and the same for the predictions. */
export interface WordStats {
  word: string;
  contexts: number;
  goldMean: number;
  /** null with one context. */
  goldStd: number | null;
  predMean: number;
  predStd: number | null;
}

function mean(v: readonly number[]): number {
  return v.reduce((s, x) => s + x, 0) / v.length;
}

/** Sample standard deviation (n − 1, as pandas' `std`); null below two values. */
export function sampleStd(v: readonly number[]): number | null {
  if (v.length < 2) return null;
  const m = mean(v);
  return Math.sqrt(v.reduce((s, x) => s + (x - m) ** 2, 0) / (v.length - 1));
}

/** Per-word statistics, words sorted. */
export function wordStats(groups: readonly WordGroup[]): WordStats[] {
  return [...groups]
    .filter((g) => g.contexts.length > 0)
    .sort((a, b) => a.word.localeCompare(b.word))
    .map((g) => {
      const gold = g.contexts.map((c) => c.goldMean);
      const pred = g.contexts.map((c) => c.predicted);
      return { word: g.word, contexts: g.contexts.length, goldMean: mean(gold), goldStd: sampleStd(gold), predMean: mean(pred), predStd: sampleStd(pred) };
    });
}

/** Pearson's r over word means (one point per word); n = words. */
export function acrossWordPearson(groups: readonly WordGroup[]): Counted {
  const used = groups.filter((g) => g.contexts.length > 0);
  const r = pearson(
    used.map((g) => mean(g.contexts.map((c) => c.predicted))),
    used.map((g) => mean(g.contexts.map((c) => c.goldMean))),
  );
  return { ...r, n: used.length };
}

/** The mean over words of each word's own Pearson's r across its contexts; n = words where r is defined. */
export function withinWordPearson(groups: readonly WordGroup[]): Counted {
  const rs: number[] = [];
  for (const g of groups) {
    const r = pearson(
      g.contexts.map((c) => c.predicted),
      g.contexts.map((c) => c.goldMean),
    );
    if (r.value !== null) rs.push(r.value);
  }
  if (rs.length === 0) return { ...absent('no word with ≥ 2 contexts and non-constant predictions and scores'), n: 0 };
  return { ...present(mean(rs)), n: rs.length };
}

/** A statistic with its word-resampled percentile interval. */
export interface WithInterval {
  value: number | null;
  low: number | null;
  high: number | null;
  n: number;
  reason?: string;
}

/** `statistic` on the groups with a 95% interval from resampling words. */
export function withWordInterval(
  groups: readonly WordGroup[],
  statistic: (g: readonly WordGroup[]) => Counted,
  seed: number,
  iterations?: number,
): WithInterval {
  const estimate = statistic(groups);
  if (estimate.value === null) return { value: null, low: null, high: null, n: estimate.n, reason: estimate.reason };
  const ci = bootstrapCI(groups, (g) => statistic(g).value, { seed, ...(iterations ? { iterations } : {}) });
  return { value: estimate.value, low: ci.low, high: ci.high, n: estimate.n };
}
