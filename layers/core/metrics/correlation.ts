/**
 * Correlation coefficients: Pearson's r and Spearman's ρ (Pearson on average ranks).
 */
import { absent, present, type Measured } from './measured.ts';

function checkPairs(x: readonly number[], y: readonly number[]): Measured | undefined {
  if (x.length !== y.length) return absent(`length mismatch: ${x.length} vs ${y.length}`);
  if (x.length < 2) return absent(`n=${x.length} < 2`);
  for (let i = 0; i < x.length; i++) {
    if (!Number.isFinite(x[i]) || !Number.isFinite(y[i])) return absent(`non-finite value at ${i}`);
  }
  if (isConstant(x)) return absent('constant x');
  if (isConstant(y)) return absent('constant y');
  return undefined;
}

// Exact equality, not a zero variance: a mean of equal floats can leave rounding residue.
function isConstant(v: readonly number[]): boolean {
  return v.every((value) => value === v[0]);
}

function mean(v: readonly number[]): number {
  let sum = 0;
  for (const value of v) sum += value;
  return sum / v.length;
}

/**
 * Pearson's correlation coefficient r of paired samples.
 * @returns r in [−1, 1], or absent with a reason for a length mismatch, n < 2, a non-finite
 * value or a constant input (r is undefined there, never 0).
 * @example
 * pearson([1, 2, 3], [2, 4, 7]); // { value: 0.993… }
 */
export function pearson(x: readonly number[], y: readonly number[]): Measured {
  const invalid = checkPairs(x, y);
  if (invalid) return invalid;
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++) {
    const dx = (x[i] as number) - mx;
    const dy = (y[i] as number) - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  const r = sxy / Math.sqrt(sxx * syy);
  return present(Math.max(-1, Math.min(1, r)));
}

/**
 * Ranks 1..n of the values; tied values share the average of the ranks they span.
 * @example
 * averageRanks([10, 20, 20, 30]); // [1, 2.5, 2.5, 4]
 */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((_, i) => i).sort((a, b) => (values[a] as number) - (values[b] as number));
  const ranks = new Array<number>(values.length);
  let start = 0;
  while (start < order.length) {
    let end = start;
    while (end + 1 < order.length && values[order[end + 1] as number] === values[order[start] as number]) end++;
    // Positions start..end (0-based) hold ranks start+1..end+1; their mean is below.
    const rank = (start + end) / 2 + 1;
    for (let p = start; p <= end; p++) ranks[order[p] as number] = rank;
    start = end + 1;
  }
  return ranks;
}

/**
 * Spearman's rank correlation ρ: Pearson's r of the average ranks (ties share a rank).
 * @returns ρ in [−1, 1], or absent with a reason in the same cases as {@link pearson}.
 */
export function spearman(x: readonly number[], y: readonly number[]): Measured {
  const invalid = checkPairs(x, y);
  if (invalid) return invalid;
  return pearson(averageRanks(x), averageRanks(y));
}
