/**
 * Text into HTML: everything a model or a dataset wrote is shown as text, never as markup.
 */

/**
 * @example
 * escapeHtml('<b>'); // '&lt;b&gt;'
 */
import type { MetricRow } from '../types.ts';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** A metric value as reports print it: three decimals, an em dash when absent. */
export const fmtValue = (v: number | null | undefined, digits = 3): string => (v === null || v === undefined ? '—' : v.toFixed(digits));

/** A slice as a reader says it: `all` → "all tasks", `subtask=abstractness` → "abstractness". */
export function sliceLabel(slice: string, unit = 'tasks'): string {
  if (slice === 'all') return `all ${unit}`;
  // A slice of several dimensions (`language=c+cpp,difficulty=easy`) shows every value: `c+cpp · difficulty easy`.
  return slice
    .split(',')
    .map((part) => {
      const [dimension, value] = part.split('=', 2);
      return dimension === 'subtask' || dimension === 'language' ? (value ?? part) : `${dimension} ${value ?? ''}`.trim();
    })
    .join(' · ');
}

/** A metric's table cell: its value over its 95% interval, or a dash with the reason it is absent. */
export function metricCell(row: MetricRow | undefined): string {
  if (!row) return '<td></td>';
  if (row.value === null) return `<td class="num muted" title="${escapeHtml(row.reason ?? '')}">—</td>`;
  return `<td class="num" title="n = ${row.n}">${fmtValue(row.value)}<span class="ci">[${fmtValue(row.ci_low)}, ${fmtValue(row.ci_high)}]</span></td>`;
}
