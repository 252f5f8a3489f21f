/**
 * Exact-match accuracy of discrete predictions against gold labels.
 */
import { absent, present, type Measured } from './measured.ts';

/**
 * Share of items whose prediction equals the gold label. A `null` prediction (an answer that
 * could not be parsed) counts as wrong.
 * @returns the share in [0, 1], or absent for a length mismatch or no items.
 * @example
 * exactMatch([1, null, 3], [1, 2, 4]); // { value: 1/3 }
 */
export function exactMatch(pred: readonly (number | null)[], gold: readonly number[]): Measured {
  if (pred.length !== gold.length) return absent(`length mismatch: ${pred.length} vs ${gold.length}`);
  if (pred.length === 0) return absent('no items');
  let hits = 0;
  for (let i = 0; i < pred.length; i++) if (pred[i] !== null && pred[i] === gold[i]) hits++;
  return present(hits / pred.length);
}
