/**
 * Ties among a likert item's choice scores: when every choice gets the same log-likelihood
 * the "prediction" is merely the first choice. A few ties happen; many mean the server's
 * tokens did not cover the choices (the scores are of something else), so a run with more
 * than {@link TIE_SHARE} of its scored items tied ends with a warning in its summary.
 */

/** The share of tied items above which a run is warned about. */
export const TIE_SHARE = 0.05;

/** Whether every finite score is equal (at least two choices). */
export function allTied(logprobs: readonly number[]): boolean {
  return logprobs.length > 1 && logprobs.every((v) => v === logprobs[0]);
}

/** How many of a run's scored items gave every choice the same score. */
export interface TieCount {
  scored: number;
  tied: number;
}

/** The tie count of a run's (or a part's) choice scores. */
export function countTies(scored: readonly (readonly number[])[]): TieCount {
  return { scored: scored.length, tied: scored.filter(allTied).length };
}

/**
 * The summary warning for a run's choice scores, or undefined when ties are rare.
 *
 * @example
 * tieWarning([[-1, -1, -1, -1, -1], [-3, -0.1, -4, -4, -4]]); // "1 of 2 scored items (50%) …"
 */
export function tieWarning(scored: readonly (readonly number[])[]): string | undefined {
  return tieWarningOf(countTies(scored));
}

/** The summary warning of a tie count (summed over a cloud run's parts), or undefined when ties are rare. */
export function tieWarningOf({ scored, tied }: TieCount): string | undefined {
  if (scored === 0 || tied / scored <= TIE_SHARE) return undefined;
  const pct = Math.round((100 * tied) / scored);
  return `${tied} of ${scored} scored items (${pct}%) gave all choices the same score: their prediction is only the first choice; the server's log-probabilities do not tell the choices apart (try --likert-mode next-token or digit-parse)`;
}
