/**
 * How every network call is made: under the provider's adaptive concurrency limit (AIMD:
 * halved on throttling, grown back one permit per round of successes), under a hard
 * timeout, retried with backoff and jitter while the failure is retryable. The one place
 * retries happen: the AWS SDK clients run with maxAttempts 1.
 *
 * Waits: the server's Retry-After (or `retry-after-ms`) plus up to half of it again in
 * jitter — so throttled callers never retry in lockstep — otherwise "full jitter" under an
 * exponential cap. Throttling is retried until `throttleRetries` attempts or the wait
 * budget (default 180 s, longer than a per-minute quota window) is spent, and so is a
 * SageMaker inference component scaling out from zero copies; other retryable failures until
 * `maxRetries`.
 */
import { fullJitterMs } from '#core/backoff.ts';
import type { TokenUsage } from '#core/types.ts';
import { AdaptiveLimit } from './adaptive-limit.ts';
import type { ResolvedOptions } from './options.ts';
import { ProviderCallError, timedOut } from './failures.ts';

/** The value of a successful call, what it cost in attempts, and the latency of the attempt that succeeded. */
export interface CallOutcome<T> {
  value: T;
  attempts: number;
  latencyMs: number;
  /** Tokens billed by earlier attempts that got an unusable answer (counted on top of the value's own usage). */
  billed?: TokenUsage;
}

/**
 * How long a call waits for an inference component to scale out from zero copies. AWS's own
 * measurement (AWS Machine Learning Blog, "Unlock cost savings with the new scale down to zero
 * feature in SageMaker Inference", Dec 2024, performance evaluation) took about 5 minutes for
 * Llama-3-8B and about 6 for 70B with container caching (1 min for the alarm, ~1.7 to
 * provision, ~2.3 to start the copy); the Developer Guide ("Scale an endpoint to zero
 * instances") says "several minutes". Ten minutes covers that with margin.
 */
export const SCALE_FROM_ZERO_BUDGET_MS = 600_000;

/** One attempt: receives the signal that aborts it on timeout or cancellation; throws a classified error. */
export type Attempt<T> = (signal: AbortSignal) => Promise<T>;

export class CallPolicy {
  readonly #opts: ResolvedOptions;
  readonly #limit: AdaptiveLimit;
  /** Classifies whatever an attempt threw; attempts of the SDK providers throw raw SDK errors. */
  readonly #classify: (err: unknown) => ProviderCallError;

  constructor(opts: ResolvedOptions, classify: (err: unknown) => ProviderCallError) {
    this.#opts = opts;
    this.#limit = new AdaptiveLimit(opts.concurrency);
    this.#classify = classify;
  }

  /** Calls allowed in flight right now (falls under throttling, recovers with successes). */
  get concurrencyLimit(): number {
    return this.#limit.limit;
  }

  /** Runs `attempt` until it succeeds, fails for good, or the retries (or the wait budget) run out. */
  async call<T>(attempt: Attempt<T>, outer?: AbortSignal): Promise<CallOutcome<T>> {
    const { maxRetries, throttleRetries, waitBudgetMs, now } = this.#opts;
    let waited = 0;
    let billed: TokenUsage | undefined;
    for (let n = 1; ; n++) {
      const started = now();
      try {
        // Classified inside the permit: the SDK providers' attempts throw raw SDK errors
        // (ThrottlingException, a ModelError wrapping a container 429), which the limit must see
        // as throttling too, or only the OpenAI-compatible providers would ever back off.
        const value = await this.#limit.run(
          () => this.#once(attempt, outer).catch((err: unknown) => Promise.reject(err instanceof ProviderCallError ? err : this.#classify(err))),
          (err) => err instanceof ProviderCallError && err.throttled,
        );
        return { value, attempts: n, latencyMs: Math.max(0, now() - started), ...(billed ? { billed } : {}) };
      } catch (err) {
        const failure = err instanceof ProviderCallError ? err : this.#classify(err);
        billed = addUsage(billed, failure.billed);
        if (outer?.aborted) throw final('call cancelled', failure, n, false, billed);
        // Throttling waits under the wait budget. Capacity on its way (an inference component
        // scaling out from zero copies) waits under its own, longer budget: AWS measured 5-6
        // minutes from the first refused call to a serving copy (see SCALE_FROM_ZERO_BUDGET_MS).
        const waits = failure.throttled || failure.awaitingCapacity;
        const allowed = failure.awaitingCapacity ? Infinity : waits ? throttleRetries : maxRetries;
        const budget = failure.awaitingCapacity ? Math.max(waitBudgetMs, SCALE_FROM_ZERO_BUDGET_MS) : waitBudgetMs;
        const delay = this.backoffMs(n, failure.retryAfterMs);
        if (!failure.retryable || n > allowed || (waits && waited + delay > budget)) {
          throw final(failure.message, failure, n, failure.retryable, billed);
        }
        waited += delay;
        await this.#opts.sleep(delay);
      }
    }
  }

  /**
   * Delay before attempt `n + 1`: the server's Retry-After (capped) plus a jitter of up to
   * half of it, otherwise "full jitter" — uniform in [0, min(cap, base·2^(n-1))].
   */
  backoffMs(n: number, retryAfterMs?: number): number {
    const { retryBaseMs, retryMaxDelayMs, retryAfterCapMs, random } = this.#opts;
    if (retryAfterMs !== undefined) {
      const base = Math.min(retryAfterMs, retryAfterCapMs);
      return Math.round(base + random() * base * 0.5);
    }
    return fullJitterMs(n, { baseMs: retryBaseMs, capMs: retryMaxDelayMs }, random);
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

/** Sum of two usages, either possibly absent. */
export function addUsage(a: TokenUsage | undefined, b: TokenUsage | undefined): TokenUsage | undefined {
  if (!a) return b;
  if (!b) return a;
  return { promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens };
}

function final(message: string, failure: ProviderCallError, attempts: number, retryable: boolean, billed: TokenUsage | undefined): ProviderCallError {
  const suffix = attempts > 1 ? ` (after ${attempts} attempts)` : '';
  return new ProviderCallError(`${message}${suffix}`, {
    retryable,
    attempts,
    cause: failure,
    throttled: failure.throttled,
    ...(failure.status !== undefined ? { status: failure.status } : {}),
    ...(failure.code !== undefined ? { code: failure.code } : {}),
    ...(billed ? { billed } : {}),
  });
}
