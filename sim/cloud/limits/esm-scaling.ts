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
 * function throttled, Inactive or Pending), or after a receive found no room (the queue's
 * 120,000 in flight), while other messages are still visible. What AWS says: a standard
 * queue's pollers keep long-polling it (the scaling page above), so a visible message never
 * waits for a send to wake them; on a failed invoke it "gradually backs off", "reducing the
 * amount of concurrency allocated" to the mapping ("Handling errors for an SQS event source in
 * Lambda", https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html). The
 * back-off's interval is not published: one second is our choice. Not modelled: a throttled
 * batch, which that page says Lambda keeps retrying until the messages' visibility timeout,
 * goes back to the queue here at once (visible after the timeout, a receive that counts), and
 * the mapping's concurrency is not reduced. The simulation polls only on a send, a completion
 * or this retry, which is why it needs one.
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
