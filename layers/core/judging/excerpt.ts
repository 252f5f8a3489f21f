/**
 * Bounded views of large texts (test inputs, expected and actual outputs) for item
 * documents and reports: a window of the text around a point of interest, with the full
 * size kept so a reader knows what was cut.
 */

import type { Excerpt } from '../types.ts';

export type { Excerpt };

/** Characters kept of one text in an item document. */
export const EXCERPT_CHARS = 1024;

const encoder = new TextEncoder();

/**
 * The window of `text` of at most `max` characters that shows `around` (a character offset)
 * with a quarter of the window before it; from the start when `around` is not given.
 * @example
 * excerpt('a'.repeat(5000) + 'X', 5000, 100) // { start: 4975, mark: 25, complete: false, … }
 */
export function excerpt(text: string, around?: number, max = EXCERPT_CHARS): Excerpt {
  const bytes = encoder.encode(text).length;
  const limit = Math.max(1, Math.floor(max));
  let start = 0;
  if (text.length > limit && around !== undefined) {
    start = Math.min(Math.max(0, around - Math.floor(limit / 4)), text.length - limit);
  }
  const window = text.slice(start, start + limit);
  const out: Excerpt = { text: window, start, bytes, complete: window.length === text.length };
  if (around !== undefined && around >= start && around <= start + window.length) out.mark = around - start;
  return out;
}
