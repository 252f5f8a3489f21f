/**
 * The report's metrics, compact: one row per slice (the whole run first), one column per
 * metric (the headline first), each cell the value with its 95% interval. Metrics measured
 * on one slice only (RoCode's code-switching shares) are listed apart, and a metric
 * that could not be computed is said once with its reason ("pass@10 absent: n=1 < k=10 ·
 * 8 slices"), not once per slice.
 */
import type { MetricRow } from '../types.ts';
import { escapeHtml, metricCell, sliceLabel } from '../html/index.ts';

/** The metrics and slices the grid shows, and what it folds. */
export interface MetricGrid {
  columns: string[];
  slices: string[];
  /** Metrics measured on one slice only (not worth a column). */
  runLevel: MetricRow[];
  /** One line per metric and reason: the slices where it is absent. */
  absent: { metric: string; reason: string; slices: string[] }[];
}

/**
 * Sorts `metrics` into the grid.
 * @example
 * metricGrid(rows, 'pass@1').absent; // [{ metric: 'pass@10', reason: 'n=1 < k=10', slices: ['all', …] }]
 */
export function metricGrid(metrics: readonly MetricRow[], headline: string): MetricGrid {
  const byMetric = new Map<string, MetricRow[]>();
  for (const m of metrics) byMetric.set(m.metric, [...(byMetric.get(m.metric) ?? []), m]);
  const allSlices = [...new Set(metrics.map((m) => m.slice))];
  const absent = new Map<string, { metric: string; reason: string; slices: string[] }>();
  const columns: string[] = [];
  const runLevel: MetricRow[] = [];
  for (const [metric, rows] of byMetric) {
    for (const r of rows.filter((x) => x.value === null)) {
      const reason = r.reason ?? 'not computed';
      const key = `${metric}\u0000${reason}`;
      const entry = absent.get(key) ?? { metric, reason, slices: [] };
      entry.slices.push(r.slice);
      absent.set(key, entry);
    }
    const computed = rows.filter((x) => x.value !== null);
    if (computed.length === 0) continue;
    if (allSlices.length > 2 && new Set(rows.map((x) => x.slice)).size === 1) runLevel.push(...computed);
    else columns.push(metric);
  }
  columns.sort((a, b) => Number(b === headline) - Number(a === headline));
  const slices = allSlices.filter((s) => metrics.some((m) => m.slice === s && columns.includes(m.metric)));
  slices.sort((a, b) => Number(b === 'all') - Number(a === 'all') || a.localeCompare(b));
  return { columns, slices, runLevel, absent: [...absent.values()] };
}

const cell = metricCell;

/** The grid as HTML: the table, the run-level metrics, the absent line. */
export function metricGridHtml(metrics: readonly MetricRow[], headline: string, unit: string): string {
  const grid = metricGrid(metrics, headline);
  const find = (metric: string, slice: string): MetricRow | undefined => metrics.find((m) => m.metric === metric && m.slice === slice);
  const head = `<tr><th>slice</th><th class="num">n</th>${grid.columns.map((c) => `<th class="num${c === headline ? ' hl' : ''}">${escapeHtml(c)}</th>`).join('')}</tr>`;
  const body = grid.slices
    .map((slice) => {
      const n = Math.max(0, ...grid.columns.map((c) => find(c, slice)?.n ?? 0));
      return `<tr><th>${escapeHtml(sliceLabel(slice, unit))}</th><td class="num">${n}</td>${grid.columns.map((c) => cell(find(c, slice))).join('')}</tr>`;
    })
    .join('');
  const table = grid.columns.length > 0 ? `<table id="metrics" class="grid"><thead>${head}</thead><tbody>${body}</tbody></table>` : '';
  const runLevel =
    grid.runLevel.length > 0
      ? `<table id="run-metrics" class="grid"><caption>measured on one slice</caption><tbody>${grid.runLevel.map((r) => `<tr><th>${escapeHtml(r.metric)}</th><td>${escapeHtml(sliceLabel(r.slice, unit))}</td>${cell(r)}</tr>`).join('')}</tbody></table>`
      : '';
  const absent =
    grid.absent.length > 0
      ? `<p id="absent" class="absent-note">${grid.absent
          .map(
            (a) =>
              `<span><b>${escapeHtml(a.metric)}</b> absent: ${escapeHtml(a.reason)}${a.slices.length > 1 ? ` · ${a.slices.length} slices` : a.slices[0] === 'all' ? '' : ` · ${escapeHtml(sliceLabel(a.slices[0] ?? '', unit))}`}</span>`,
          )
          .join(' · ')}</p>`
      : '';
  return `${table}${runLevel}${absent}` || '<p>No metrics.</p>';
}
