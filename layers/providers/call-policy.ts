/**
 * How every network call is made: inside the provider's semaphore, under a hard timeout,
 * retried with exponential backoff and full jitter (or the server's Retry-After) while the
 * failure is retryable. The one place retries happen: the AWS SDK clients run with
 * maxAttempts 1.
 */
import type { ResolvedOptions } from './options.ts';
import { Semaphore } from './semaphore.ts';
import { ProviderCallError, timedOut } from './failures.ts';

/** The value of a successful call, what it cost in attempts, and the latency of the attempt that succeeded. */
export interface CallOutcome<T> {
  value: T;
  attempts: number;
  latencyMs: number;
}

/** One attempt: receives the signal that aborts it on timeout or cancellation; throws a classified error. */
export type Attempt<T> = (signal: AbortSignal) => Promise<T>;

export class CallPolicy {
  readonly #opts: ResolvedOptions;
  readonly #semaphore: Semaphore;
  /** Classifies whatever an attempt threw; attempts of the SDK providers throw raw SDK errors. */
  readonly #classify: (err: unknown) => ProviderCallError;

  constructor(opts: ResolvedOptions, classify: (err: unknown) => ProviderCallError) {
    this.#opts = opts;
    this.#semaphore = new Semaphore(opts.concurrency);
    this.#classify = classify;
  }

  /** Runs `attempt` until it succeeds, fails for good, or the retries run out. */
  async call<T>(attempt: Attempt<T>, outer?: AbortSignal): Promise<CallOutcome<T>> {
    const { maxRetries, now } = this.#opts;
    for (let n = 1; ; n++) {
      const started = now();
      try {
        const value = await this.#semaphore.run(() => this.#once(attempt, outer));
        return { value, attempts: n, latencyMs: Math.max(0, now() - started) };
      } catch (err) {
        const failure = err instanceof ProviderCallError ? err : this.#classify(err);
        if (outer?.aborted) throw final('call cancelled', failure, n, false);
        if (!failure.retryable || n > maxRetries) throw final(failure.message, failure, n, failure.retryable);
        await this.#opts.sleep(this.backoffMs(n, failure.retryAfterMs));
      }
    }
  }

  /**
   * Delay before attempt `n + 1`: the server's Retry-After when given (capped), otherwise
   * "full jitter" — uniform in [0, min(cap, base·2^(n-1))] — which spreads a thundering herd.
   */
  backoffMs(n: number, retryAfterMs?: number): number {
    const { retryBaseMs, retryMaxDelayMs, retryAfterCapMs, random } = this.#opts;
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, retryAfterCapMs);
    return Math.round(random() * Math.min(retryMaxDelayMs, retryBaseMs * 2 ** (n - 1)));
  }

  async #once<T>(attempt: Attempt<T>, outer?: AbortSignal): Promise<T> {
    const { timeoutMs } = this.#opts;
    const controller = new AbortController();
    const onOuterAbort = (): void => controller.abort(outer?.reason);
    if (outer?.aborted) controller.abort(outer.reason);
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    // The race makes the timeout hard even if a client ignored the abort signal.
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = timedOut(timeoutMs);
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    });
    try {
      return await Promise.race([attempt(controller.signal), deadline]);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    }
  }
}

function final(message: string, failure: ProviderCallError, attempts: number, retryable: boolean): ProviderCallError {
  const suffix = attempts > 1 ? ` (after ${attempts} attempts)` : '';
  return new ProviderCallError(`${message}${suffix}`, {
    retryable,
    attempts,
    cause: failure,
    ...(failure.status !== undefined ? { status: failure.status } : {}),
  });
}
