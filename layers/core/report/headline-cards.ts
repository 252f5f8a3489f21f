/**
 * What the report leads with: the headline metric of the run's protocol with its 95%
 * interval, one card per subtask (ABRICOT) or per language (a run over several), and the
 * verdict counts beside them.
 */
import { headlineMetric, headlineSlices } from '../benchmarks/index.ts';
import type { Manifest } from '../run/index.ts';
import type { MetricRow, Verdict } from '../types.ts';
import { VERDICTS } from '../types.ts';
import { escapeHtml, fmtValue, sliceLabel } from '../html/index.ts';
import { axisFor, intervalBar } from '../html/index.ts';
import { stackedBars } from '../html/index.ts';

/** One headline figure: the metric key it reads and the row, when the run has one. */
export interface HeadlineCard {
  metric: string;
  slice: string;
  row: MetricRow | undefined;
}

/** The headline metric of a run: its protocol's, else its benchmark's. */
export function runHeadlineMetric(manifest: Pick<Manifest, 'benchmark' | 'protocol'>): string {
  return manifest.protocol?.settings.headline ?? headlineMetric(manifest.benchmark.id);
}

/**
 * The cards of a run: the benchmark's headline slices (ABRICOT's subtasks), and for a
 * headline over all tasks of a run in several languages, the whole run then each language.
 * @example
 * headlineCards(manifest, metrics).map((c) => `${c.metric}/${c.slice}`); // ['pass@1/all']
 */
export function headlineCards(manifest: Pick<Manifest, 'benchmark' | 'protocol'>, metrics: readonly MetricRow[]): HeadlineCard[] {
  const metric = runHeadlineMetric(manifest);
  let slices = [...headlineSlices(manifest.benchmark.id)];
  if (slices.length === 1 && slices[0] === 'all') {
    const languages = [...new Set(metrics.filter((m) => m.metric === metric && m.slice.startsWith('language=')).map((m) => m.slice))].sort();
    if (languages.length > 1) slices = ['all', ...languages];
  }
  return slices.map((slice) => ({ metric, slice, row: metrics.find((m) => m.metric === metric && m.slice === slice) }));
}

function card(c: HeadlineCard, unit: string): string {
  const r = c.row;
  const computed = r !== undefined && r.value !== null;
  const axis = axisFor(r ? [r] : [], [0, 1]);
  const figure = computed
    ? `<div class="value">${fmtValue(r.value)}</div><div class="ci">95% CI [${fmtValue(r.ci_low)}, ${fmtValue(r.ci_high)}] · n = ${r.n} ${unit}</div>${intervalBar(r, axis, { width: 200, className: 'hbar', track: true })}`
    : `<div class="value">—</div><div class="absent">absent: ${escapeHtml(r?.reason ?? 'not computed for this run')}</div>`;
  return `<div class="card" data-metric="${escapeHtml(c.metric)}" data-slice="${escapeHtml(c.slice)}"><div class="label">${escapeHtml(c.metric)} · ${escapeHtml(sliceLabel(c.slice, unit))}</div>${figure}</div>`;
}

function verdictCard(verdicts: Partial<Record<Verdict, number>>, items: number): string {
  const present = VERDICTS.filter((v) => verdicts[v]);
  const counts = present.map((v) => `<span class="v-${v}"><b>${v}</b> ${verdicts[v]}</span>`).join(' ');
  const bar = present.length > 0 ? stackedBars([{ label: '', counts: verdicts }], present, { width: 220, labelWidth: 0, legend: false }) : '';
  return `<div class="card verdicts" id="verdict-counts"><div class="label">verdicts · ${items} samples</div><div class="counts">${counts || 'none recorded'}</div>${bar}</div>`;
}

/**
 * The headline section: the cards, then the verdict counts.
 * @param unit what the interval resamples: `tasks` for code, `items` for Likert runs.
 */
export function headlineSection(cards: readonly HeadlineCard[], summary: { items: number; verdicts: Partial<Record<Verdict, number>> }, unit: string): string {
  return `<section id="headline" class="cards">${cards.map((c) => card(c, unit)).join('')}${verdictCard(summary.verdicts, summary.items)}</section>`;
}
