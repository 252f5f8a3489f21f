/**
 * Retry budgets inside the generate function's timeout. A provider call that is still
 * retrying when Lambda stops the function leaves its message to come back: the batch is then
 * generated — and paid — twice. So the cloud builds providers whose worst case (every attempt
 * timing out, every wait at its cap) ends well before the function's timeout, and with room
 * for every message of a batch at once (no call waits behind another for a slot).
 */
import type { ProviderOptions } from '#providers/index.ts';

/**
 * The most messages one generate invocation takes, each one model call made at once (the event
 * source's batch in infra/pipeline.ts, generate-mapping.ts: 12 at the default settings, 25 from
 * `generateMaxConcurrency` 10 up). The calls run side by side, so a batch's worst case is one
 * call's ({@link worstCaseCallMs}) whatever its size.
 */
export const GENERATE_BATCH_SIZE = 25;
/** The generate function's timeout (infra/queues.ts STAGE_TIMEOUTS.generate). */
export const GENERATE_TIMEOUT_MS = 300_000;
/** Left after the calls for post-processing, recording, sending to the executor. */
export const RECORD_HEADROOM_MS = 30_000;

/** The provider options of the generate stage. */
export const GENERATE_PROVIDER_OPTIONS = {
  concurrency: GENERATE_BATCH_SIZE,
  timeoutMs: 60_000,
  maxRetries: 2,
  retryBaseMs: 500,
  retryMaxDelayMs: 10_000,
  retryAfterCapMs: 20_000,
} as const satisfies ProviderOptions;

/**
 * Receives of a generate message before its DLQ. A throttled item goes back to the queue
 * (below), and every return counts as a receive — SQS has one ReceiveCount per message and the
 * redrive policy counts them all, so throttle returns cannot be counted apart from failures.
 * The count is sized instead: with {@link quotaBackoffSeconds}' waits (1, 2, 4, 8 minutes,
 * then 15 each) 50 receives hold an item through ~11 hours of a quota that stays taken, well
 * inside the queue's 4-day retention; any other failure still comes back every visibility
 * timeout (30 minutes) and reaches the DLQ after 50 tries. (Re-sending a throttled item as a
 * new message would reset its count, but each send is one more hop of Lambda's recursion
 * detection, which drops a chain after ~16: an item throttled 16 times would be lost.)
 */
export const GENERATE_MAX_RECEIVE_COUNT = 50;

/** First back-off of a throttled item, and the longest one (ChangeMessageVisibility's bound is 12 hours). */
export const QUOTA_BACKOFF_BASE_S = 60;
export const QUOTA_BACKOFF_MAX_S = 900;
/** SQS's limit on a message's visibility timeout: 12 hours. */
export const SQS_MAX_VISIBILITY_S = 43_200;

/**
 * How long a throttled item stays invisible after its `receiveCount`-th receive: 60 s doubling
 * with each return up to 15 minutes, with ±20 % jitter so the items throttled together do not
 * come back together; never above SQS's 12 hours.
 * @example quotaBackoffSeconds(1, () => 0.5) // 60
 */
export function quotaBackoffSeconds(receiveCount: number, random: () => number = Math.random): number {
  const n = Math.max(1, Math.floor(receiveCount));
  const base = Math.min(QUOTA_BACKOFF_MAX_S, QUOTA_BACKOFF_BASE_S * 2 ** Math.min(n - 1, 20));
  return Math.min(SQS_MAX_VISIBILITY_S, Math.round(base * (0.8 + 0.4 * random())));
}

/**
 * The most a Retry-After wait adds on top of its capped value: the call policy waits the capped
 * Retry-After plus up to half of it again in jitter (layers/providers/call-policy.ts backoffMs).
 */
export const RETRY_AFTER_JITTER = 1.5;

/**
 * The longest one call can take: every attempt hits the timeout, every wait the longer of the
 * full-jitter cap and a capped Retry-After with its jitter (a 429 answered at the timeout).
 */
export function worstCaseCallMs(options: Required<Pick<ProviderOptions, 'timeoutMs' | 'maxRetries' | 'retryMaxDelayMs' | 'retryAfterCapMs'>>): number {
  return (options.maxRetries + 1) * options.timeoutMs + options.maxRetries * Math.max(options.retryMaxDelayMs, RETRY_AFTER_JITTER * options.retryAfterCapMs);
}
