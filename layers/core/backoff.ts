/**
 * The one backoff rule of the project: exponential with "full jitter" (AWS Architecture Blog,
 * "Exponential Backoff And Jitter"), capped. Provider calls and the retries the AWS SDK cannot
 * see (entries a batch call left unprocessed, DynamoDB transaction conflicts) both wait this.
 */

/** The parameters of {@link fullJitterMs}. */
export interface Backoff {
  /** Ceiling of the first retry's wait. */
  baseMs: number;
  /** The ceiling never grows past this. */
  capMs: number;
}

/**
 * Wait before retry `n` (1 for the first retry): uniform in [0, min(cap, base·2^(n-1))],
 * rounded to a whole millisecond.
 * @example
 * fullJitterMs(3, { baseMs: 100, capMs: 1_000 }, () => 1); // 400
 * @throws never
 */
export function fullJitterMs(n: number, backoff: Backoff, random: () => number = Math.random): number {
  return Math.round(random() * Math.min(backoff.capMs, backoff.baseMs * 2 ** (n - 1)));
}
