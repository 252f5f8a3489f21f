import pLimit, { type LimitFunction } from 'p-limit';

/**
 * Calls in flight under an AIMD limit (additive increase, multiplicative decrease), the
 * congestion control TCP uses: each success raises the limit by 1/limit (about one permit
 * per round of calls), each throttling answer halves it — once per round, so a burst of
 * 429s from one quota window halves it once, not to 1 at once. The limit never exceeds the
 * configured concurrency and never falls below 1. Waiters are served in FIFO order (p-limit's
 * queue; only the AIMD policy is ours).
 */
export class AdaptiveLimit {
  #limit: number;
  /** Bumped at each decrease: a throttle seen by a call that started before it is the same congestion. */
  #epoch = 0;
  readonly #queue: LimitFunction;

  constructor(readonly max: number) {
    this.#limit = max;
    this.#queue = pLimit(max);
  }

  /** Calls allowed in flight right now. */
  get limit(): number {
    return Math.max(1, Math.floor(this.#limit));
  }

  /** Runs `fn` under one permit; `fn` reports whether its attempt was throttled through the returned flag. */
  run<T>(fn: () => Promise<T>, throttled: (err: unknown) => boolean): Promise<T> {
    return this.#queue(async () => {
      const epoch = this.#epoch;
      try {
        const value = await fn();
        this.#limit = Math.min(this.max, this.#limit + 1 / this.#limit);
        return value;
      } catch (err) {
        if (throttled(err) && epoch === this.#epoch) {
          this.#limit = Math.max(1, this.#limit / 2);
          this.#epoch += 1;
        }
        throw err;
      } finally {
        if (this.#queue.concurrency !== this.limit) this.#queue.concurrency = this.limit;
      }
    });
  }
}
