/**
 * Text into HTML: everything a model or a dataset wrote is shown as text, never as markup.
 */

/**
 * @example
 * escapeHtml('<b>'); // '&lt;b&gt;'
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** A metric value as reports print it: three decimals, an em dash when absent. */
export const fmtValue = (v: number | null | undefined, digits = 3): string => (v === null || v === undefined ? '—' : v.toFixed(digits));

/** A slice as a reader says it: `all` → "all tasks", `subtask=abstractness` → "abstractness". */
export function sliceLabel(slice: string, unit = 'tasks'): string {
  if (slice === 'all') return `all ${unit}`;
  const [dimension, value] = slice.split('=');
  return dimension === 'subtask' || dimension === 'language' ? (value ?? slice) : `${dimension} ${value ?? ''}`.trim();
}
