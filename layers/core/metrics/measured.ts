/**
 * A metric value, or its absence with a reason. Metrics never report a silent zero where a
 * number cannot be computed (DESIGN §6): callers must look at `value` before using it.
 */

/** A computed number, or `null` with the reason it could not be computed. */
export type Measured = { value: number } | { value: null; reason: string };

/** A measured value together with the number of units it was computed over. */
export type Counted = Measured & { n: number };

/** A present value. */
export function present(value: number): { value: number } {
  return { value };
}

/** An absent value with its reason. */
export function absent(reason: string): { value: null; reason: string } {
  return { value: null, reason };
}

/** A unit's contribution to a ratio metric: numerator and denominator. */
export type Ratio = readonly [numerator: number, denominator: number];

/**
 * Σ numerators / Σ denominators, or null when every denominator is 0. A mean over units is
 * the ratio with denominator 1 per unit; a rate over samples sums per-unit counts.
 */
export function ratioOf(parts: readonly Ratio[]): number | null {
  let num = 0;
  let den = 0;
  for (const [a, b] of parts) {
    num += a;
    den += b;
  }
  return den === 0 ? null : num / den;
}
