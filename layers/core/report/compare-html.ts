/**
 * A paired comparison of two runs (`polyeval compare --format html`) as one offline,
 * self-contained file that leads with the answer: the headline metric's difference b − a
 * with its paired bootstrap 95% interval (one card per subtask or language) and what it
 * says; then every metric and slice, the difference and its interval first, drawn around
 * zero on one shared axis so the rows read as a forest plot; what could not be compared is
 * said once per metric and reason.
 */
import type { CompareRow } from '../scorers/index.ts';
import { escapeHtml, fmtValue as fmt, sliceLabel } from '../html/index.ts';
import { axisFor, intervalBar } from '../html/index.ts';
import { REPORT_CSS } from './leaderboard-html.ts';

/** One side of the comparison. */
export interface CompareSide {
  run_id: string;
  model: string;
}

function verdictOf(row: CompareRow): string {
  if (row.diff === null || row.ci_low === null || row.ci_high === null) return '';
  if (row.ci_low > 0) return 'b higher';
  if (row.ci_high < 0) return 'a higher';
  return 'no clear difference';
}

const keyOf = (r: Pick<CompareRow, 'metric' | 'slice'>): string => (r.slice === 'all' ? r.metric : `${r.metric}/${r.slice}`);

function headlineCard(key: string, row: CompareRow | undefined): string {
  const figure =
    row && row.diff !== null
      ? `<div class="value">${row.diff >= 0 ? '+' : ''}${fmt(row.diff)}</div><div class="ci">95% CI [${fmt(row.ci_low)}, ${fmt(row.ci_high)}] · ${escapeHtml(verdictOf(row))}</div><div class="ci">a ${fmt(row.a)} → b ${fmt(row.b)} · ${row.units} shared units</div>${intervalBar({ value: row.diff, ci_low: row.ci_low, ci_high: row.ci_high }, axisFor([{ value: row.diff, ci_low: row.ci_low, ci_high: row.ci_high }], [0]), { width: 200, mark: 0, className: 'hbar', track: true })}`
      : `<div class="value">—</div><div class="absent">absent: ${escapeHtml(row?.reason ?? 'neither run has it')}</div>`;
  const [metric = key, slice = 'all'] = key.split('/');
  return `<div class="card" data-metric="${escapeHtml(key)}"><div class="label">b − a · ${escapeHtml(metric)} · ${escapeHtml(sliceLabel(slice))}</div>${figure}</div>`;
}

const CSS = `${REPORT_CSS}
.cards{display:flex;flex-wrap:wrap;gap:.8rem;margin:.5rem 0 1rem}.card{border:1px solid #cdd;border-radius:8px;padding:.6rem .9rem;min-width:14rem;background:#fbfdfd}
.card .label{color:#445;font-weight:600}.card .value{font-size:2rem;font-weight:700;font-variant-numeric:tabular-nums;line-height:1.2}.hbar{display:block;margin-top:4px}
.absent-note{color:#a55;font-size:13px}`;

/**
 * Renders {@link compareRuns}' rows.
 * @param input.headline the metric keys the run's protocol leads with (`pass@1`, `pearson/subtask=abstractness`); none: no cards.
 * @example
 * renderCompareHtml({ benchmark: 'abricot', a, b, rows, headline: ['pearson/subtask=abstractness'], generatedAt: new Date().toISOString() });
 */
export function renderCompareHtml(input: {
  benchmark: string;
  a: CompareSide;
  b: CompareSide;
  rows: readonly CompareRow[];
  headline?: readonly string[];
  generatedAt: string;
}): string {
  const shown = input.rows.filter((r) => r.diff !== null);
  const axis = axisFor(
    shown.map((r) => ({ value: r.diff, ci_low: r.ci_low, ci_high: r.ci_high })),
    [0],
  );
  const cards = (input.headline ?? [])
    .map((key) =>
      headlineCard(
        key,
        input.rows.find((r) => keyOf(r) === key),
      ),
    )
    .join('');
  const body = shown
    .map(
      (r) =>
        `<tr><td>${escapeHtml(r.metric)}</td><td>${escapeHtml(r.slice)}</td><td class="num">${fmt(r.diff)}</td><td class="num">[${fmt(r.ci_low)}, ${fmt(r.ci_high)}]</td><td>${intervalBar({ value: r.diff, ci_low: r.ci_low, ci_high: r.ci_high }, axis, { width: 220, mark: 0 })}</td><td>${escapeHtml(verdictOf(r))}</td><td class="num">${fmt(r.a)}</td><td class="num">${fmt(r.b)}</td><td class="num">${fmt(r.pShare)}</td><td class="num">${r.units}</td></tr>`,
    )
    .join('');
  const absent = new Map<string, { metric: string; reason: string; slices: number }>();
  for (const r of input.rows.filter((x) => x.diff === null)) {
    const reason = r.reason ?? 'not computed';
    const entry = absent.get(`${r.metric}\u0000${reason}`) ?? { metric: r.metric, reason, slices: 0 };
    entry.slices++;
    absent.set(`${r.metric}\u0000${reason}`, entry);
  }
  const absentLine =
    absent.size > 0
      ? `<p id="absent" class="absent-note">${[...absent.values()].map((a) => `<b>${escapeHtml(a.metric)}</b> absent: ${escapeHtml(a.reason)}${a.slices > 1 ? ` · ${a.slices} slices` : ''}`).join(' · ')}</p>`
      : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>polyeval compare · ${escapeHtml(input.a.run_id)} vs ${escapeHtml(input.b.run_id)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${CSS}</style></head>
<body>
<h1>polyeval compare · ${escapeHtml(input.benchmark)}</h1>
<table class="kv"><tr><th>a</th><td>${escapeHtml(input.a.model)} · run ${escapeHtml(input.a.run_id)}</td></tr><tr><th>b</th><td>${escapeHtml(input.b.model)} · run ${escapeHtml(input.b.run_id)}</td></tr></table>
${cards ? `<section id="headline" class="cards">${cards}</section>` : ''}
<table id="compare"><thead><tr><th>metric</th><th>slice</th><th>b − a</th><th>95% CI</th><th></th><th></th><th>a</th><th>b</th><th>p≈</th><th>units</th></tr></thead><tbody>${body}</tbody></table>
${absentLine}
<p class="small">Paired bootstrap over the units (tasks or items) both runs share: b − a with its 95% interval; the axis is shared by every row (grey line: no difference, from ${fmt(axis.min)} to ${fmt(axis.max)}). p≈ is the share of resamples whose difference has the opposite sign. Generated ${escapeHtml(input.generatedAt)}.</p>
</body></html>
`;
}
