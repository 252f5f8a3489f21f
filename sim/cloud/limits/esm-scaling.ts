/**
 * How an SQS event source mapping scales. For a standard queue Lambda starts with five
 * concurrent invokes, adds "up to 300 more concurrent invokes per minute" while messages
 * remain, and a mapping processes at most 1,250 invokes at once ("The maximum number of
 * invokes that an event source mapping can process simultaneously is 1,250"; with the account's
 * default 1,000 concurrency, the account's limit binds first). `MaximumConcurrency` caps a
 * mapping lower; the API takes 2 to 1,000 (ScalingConfig). The function's own concurrency
 * (reserved or the account's) still applies: the mapping's invocations are throttled like any
 * other. Provisioned mode (dedicated pollers) is not used by our stack and not simulated.
 * Pages: "Configuring scaling behavior for SQS event source mappings",
 * https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html;
 * ScalingConfig, https://docs.aws.amazon.com/lambda/latest/api/API_ScalingConfig.html
 * (MaximumConcurrency: minimum 2, maximum 1000).
 */

export const ESM_INITIAL_BATCHES = 5;
export const ESM_SCALE_UP_PER_MINUTE = 300;
/** The most invokes one standard-queue mapping runs at once. */
export const ESM_MAX_BATCHES = 1250;
/** The bounds of a mapping's `MaximumConcurrency` setting. */
export const MAX_CONCURRENCY_MIN = 2;
export const MAX_CONCURRENCY_MAX = 1000;

/**
 * Assumed: how soon a mapping's pollers receive again after an invoke of theirs failed (the
 * function throttled, Inactive or Pending) while other messages are still visible. Lambda's
 * pollers keep polling a queue that holds messages and "back off" on errors (the scaling page
 * above, "Understanding ... polling"); the interval is not published. One second is one short
 * back-off: the remaining messages are received (each receive counts) and fail like the first,
 * as they do in Lambda, rather than wait for a send that may never come.
 */
export const ESM_RETRY_AFTER_ERROR_MS = 1_000;

/** The batches a mapping may have in flight `msSinceBusy` after messages appeared. */
export function esmAllowedBatches(msSinceBusy: number, maxConcurrency?: number): number {
  if (maxConcurrency !== undefined && (!Number.isInteger(maxConcurrency) || maxConcurrency < MAX_CONCURRENCY_MIN || maxConcurrency > MAX_CONCURRENCY_MAX)) {
    throw new Error(`MaximumConcurrency must be an integer from ${MAX_CONCURRENCY_MIN} to ${MAX_CONCURRENCY_MAX}, got ${maxConcurrency}`);
  }
  const scaled = ESM_INITIAL_BATCHES + Math.floor((Math.max(0, msSinceBusy) / 60_000) * ESM_SCALE_UP_PER_MINUTE);
  return Math.min(scaled, ESM_MAX_BATCHES, maxConcurrency ?? ESM_MAX_BATCHES);
}
