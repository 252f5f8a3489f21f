/**
 * A paired comparison of two runs (`polyeval compare --format html`) as one offline,
 * self-contained file: per metric and slice, each run's value and the difference b − a with
 * its paired bootstrap 95% interval, drawn around zero on one shared axis so the rows read
 * as a forest plot.
 */
import type { CompareRow } from '../metrics/compare.ts';
import { escapeHtml } from './html.ts';
import { axisFor, intervalBar } from './interval-bar.ts';
import { REPORT_CSS } from './leaderboard-html.ts';

/** One side of the comparison. */
export interface CompareSide {
  run_id: string;
  model: string;
}

const fmt = (v: number | null, digits = 3): string => (v === null ? '—' : v.toFixed(digits));

function verdictOf(row: CompareRow): string {
  if (row.diff === null || row.ci_low === null || row.ci_high === null) return '';
  if (row.ci_low > 0) return 'b higher';
  if (row.ci_high < 0) return 'a higher';
  return 'no clear difference';
}

/**
 * Renders {@link compareRuns}' rows.
 * @example
 * renderCompareHtml({ benchmark: 'abricot', a, b, rows, generatedAt: new Date().toISOString() });
 */
export function renderCompareHtml(input: { benchmark: string; a: CompareSide; b: CompareSide; rows: readonly CompareRow[]; generatedAt: string }): string {
  const diffs = input.rows.map((r) => ({ value: r.diff, ci_low: r.ci_low, ci_high: r.ci_high }));
  const axis = axisFor(diffs, [0]);
  const body = input.rows
    .map((r) => {
      const note = r.reason ? `<span class="absent">absent: ${escapeHtml(r.reason)}</span>` : escapeHtml(verdictOf(r));
      return `<tr><td>${escapeHtml(r.metric)}</td><td>${escapeHtml(r.slice)}</td><td class="num">${fmt(r.a)}</td><td class="num">${fmt(r.b)}</td><td class="num">${fmt(r.diff)}</td><td class="num">${r.diff === null ? '' : `[${fmt(r.ci_low)}, ${fmt(r.ci_high)}]`}</td><td>${intervalBar({ value: r.diff, ci_low: r.ci_low, ci_high: r.ci_high }, axis, { width: 220, mark: 0 })}</td><td class="num">${fmt(r.pShare)}</td><td class="num">${r.units}</td><td>${note}</td></tr>`;
    })
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>polyeval compare · ${escapeHtml(input.a.run_id)} vs ${escapeHtml(input.b.run_id)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${REPORT_CSS}</style></head>
<body>
<h1>polyeval compare · ${escapeHtml(input.benchmark)}</h1>
<table class="kv"><tr><th>a</th><td>${escapeHtml(input.a.model)} · run ${escapeHtml(input.a.run_id)}</td></tr><tr><th>b</th><td>${escapeHtml(input.b.model)} · run ${escapeHtml(input.b.run_id)}</td></tr></table>
<p class="small">Paired bootstrap over the units (tasks or items) both runs share: b − a with its 95% interval; the axis is shared by every row (grey line: no difference, from ${fmt(axis.min)} to ${fmt(axis.max)}). p≈ is the share of resamples whose difference has the opposite sign. Generated ${escapeHtml(input.generatedAt)}.</p>
<table id="compare"><thead><tr><th>metric</th><th>slice</th><th>a</th><th>b</th><th>b − a</th><th>95% CI</th><th></th><th>p≈</th><th>units</th><th></th></tr></thead><tbody>${body}</tbody></table>
</body></html>
`;
}
