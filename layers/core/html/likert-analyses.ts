/**
 * The report's "Words and domains" section of an ABRICOT run, self-contained (its own tables
 * and SVG, nothing shared with the rest of the layout but `escapeHtml`): the across-word and
 * within-word correlations with their word-resampled intervals, Pearson per domain, the
 * paper's Table 1 per word with the predictions beside it, and the distribution of the human
 * scores per subtask (the paper's Fig. 3) as histograms.
 */
import type { MetricRow, RunRecord } from '../types.ts';

const esc = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const fmt = (v: number | null): string => (v === null ? '—' : v.toFixed(3));
const ci = (r: MetricRow): string =>
  r.value === null
    ? `<span class="absent">absent: ${esc(r.reason ?? '')}</span>`
    : r.ci_low === null || r.ci_high === null
      ? ''
      : `[${fmt(r.ci_low)}, ${fmt(r.ci_high)}]`;

/** Slice `subtask=a,word=b` → { subtask: 'a', word: 'b' }. */
function sliceParts(slice: string): Record<string, string> {
  return Object.fromEntries(slice.split(',').map((p) => p.split('=', 2) as [string, string]));
}

/** Metric rows whose ids are ABRICOT's word-level statistics (shown here, not in the metrics table). */
export function isWordRow(r: MetricRow): boolean {
  return r.metric.startsWith('word_');
}

function correlations(metrics: readonly MetricRow[]): string {
  const rows = metrics.filter((r) => r.metric === 'pearson_across_word' || r.metric === 'pearson_within_word' || r.metric === 'pearson_domain');
  if (rows.length === 0) return '';
  const body = rows
    .map((r) => {
      const p = sliceParts(r.slice);
      const what =
        r.metric === 'pearson_domain'
          ? `domain ${p.domain ?? ''}`
          : r.metric === 'pearson_across_word'
            ? 'across words (word means)'
            : 'within word (mean of per-word r)';
      return `<tr><td>${esc(p.subtask ?? '')}</td><td>${esc(what)}</td><td class="num">${fmt(r.value)}</td><td class="num">${ci(r)}</td><td class="num">${r.n}</td></tr>`;
    })
    .join('');
  return `<table class="abricot-corr"><thead><tr><th>subtask</th><th>Pearson r</th><th>value</th><th>95% CI</th><th>n</th></tr></thead><tbody>${body}</tbody></table>`;
}

function wordTable(metrics: readonly MetricRow[]): string {
  const table = new Map<string, Map<string, MetricRow>>();
  for (const r of metrics.filter(isWordRow)) {
    const byMetric = table.get(r.slice) ?? new Map<string, MetricRow>();
    byMetric.set(r.metric, r);
    table.set(r.slice, byMetric);
  }
  if (table.size === 0) return '';
  const cell = (m: Map<string, MetricRow>, id: string) => `<td class="num">${fmt(m.get(id)?.value ?? null)}</td>`;
  const body = [...table]
    .map(([slice, m]) => {
      const p = sliceParts(slice);
      return `<tr><td>${esc(p.subtask ?? '')}</td><td>${esc(p.word ?? '')}</td><td class="num">${m.get('word_gold_mean')?.n ?? ''}</td>${cell(m, 'word_gold_mean')}${cell(m, 'word_gold_std')}${cell(m, 'word_pred_mean')}${cell(m, 'word_pred_std')}</tr>`;
    })
    .join('');
  return `<table class="abricot-words"><thead><tr><th>subtask</th><th>word</th><th>contexts</th><th>human mean</th><th>human std</th><th>predicted mean (1–5)</th><th>predicted std</th></tr></thead><tbody>${body}</tbody></table>`;
}

/** Ten bins of [0, 1] (the last closed): counts of `values`. */
export function histogram(values: readonly number[], bins = 10): number[] {
  const counts = new Array<number>(bins).fill(0);
  for (const v of values) {
    const i = Math.min(bins - 1, Math.max(0, Math.floor(v * bins)));
    counts[i] = (counts[i] ?? 0) + 1;
  }
  return counts;
}

function histogramSvg(counts: readonly number[], label: string): string {
  const w = 300;
  const h = 140;
  const pad = 24;
  const max = Math.max(1, ...counts);
  const bw = (w - pad) / counts.length;
  const bars = counts
    .map((c, i) => {
      const bh = ((h - pad) * c) / max;
      return `<rect x="${(pad + i * bw + 1).toFixed(1)}" y="${(h - pad - bh).toFixed(1)}" width="${(bw - 2).toFixed(1)}" height="${bh.toFixed(1)}" fill="#7a9e3b"><title>${(i / counts.length).toFixed(1)}–${((i + 1) / counts.length).toFixed(1)}: ${c}</title></rect>`;
    })
    .join('');
  return `<svg width="${w}" height="${h}" role="img" aria-label="${esc(label)}">${bars}<line x1="${pad}" x2="${w}" y1="${h - pad}" y2="${h - pad}" stroke="#999"/><text x="${pad}" y="${h - 8}" font-size="10">0</text><text x="${w - 8}" y="${h - 8}" font-size="10" text-anchor="end">1</text><text x="${(pad + w) / 2}" y="${h - 8}" font-size="10" text-anchor="middle">human mean</text></svg>`;
}

/** Histograms of the human means per subtask, one value per item (not per sample). */
function goldDistributions(records: readonly RunRecord[]): string {
  const seen = new Set<string>();
  const bySubtask = new Map<string, number[]>();
  for (const r of records) {
    if (r.gold_mean === null || seen.has(r.task_id)) continue;
    seen.add(r.task_id);
    const key = r.subtask ?? 'all';
    const list = bySubtask.get(key);
    if (list) list.push(r.gold_mean);
    else bySubtask.set(key, [r.gold_mean]);
  }
  return [...bySubtask]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([subtask, values]) =>
        `<figure class="gold-distribution"><figcaption>${esc(subtask)}: human scores (${values.length} items)</figcaption>${histogramSvg(histogram(values), `${subtask} gold distribution`)}</figure>`,
    )
    .join('');
}

/** The section's HTML (empty when the run has no likert records). */
export function likertAnalysesSection(metrics: readonly MetricRow[], records: readonly RunRecord[]): string {
  if (!records.some((r) => r.gold_mean !== null)) return '';
  return `<section id="words-and-domains"><h2>Words and domains</h2>
<p>Does the model order different words, or also the contexts of one word? Across words: Pearson's r of word means; within word: each word's r over its contexts, averaged over words; both against the human mean, intervals resampling words. Per domain: Pearson's r against the gold digit.</p>
${correlations(metrics)}
<h3>Human scores</h3>${goldDistributions(records)}
<h3>Per word (the paper's Table 1, with the predictions)</h3>${wordTable(metrics)}
</section>`;
}
