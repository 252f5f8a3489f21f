/**
 * How an SQS event source mapping scales. For a standard queue Lambda starts with five
 * concurrent batches, adds up to 300 more per minute while messages remain, and processes at
 * most 1,000 batches at once; `MaximumConcurrency` (2 to 1,000) caps it lower. The function's
 * own concurrency (reserved or the account's) still applies: the mapping's invocations are
 * throttled like any other.
 * Pages: "Configuring scaling behavior for SQS event source mappings",
 * https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html;
 * AWS::Lambda::EventSourceMapping ScalingConfig (MaximumConcurrency: minimum 2, maximum 1000).
 */

export const ESM_INITIAL_BATCHES = 5;
export const ESM_SCALE_UP_PER_MINUTE = 300;
export const ESM_MAX_BATCHES = 1000;

/** The batches a mapping may have in flight `msSinceBusy` after messages appeared. */
export function esmAllowedBatches(msSinceBusy: number, maxConcurrency?: number): number {
  if (maxConcurrency !== undefined && (!Number.isInteger(maxConcurrency) || maxConcurrency < 2 || maxConcurrency > ESM_MAX_BATCHES)) {
    throw new Error(`MaximumConcurrency must be an integer from 2 to ${ESM_MAX_BATCHES}, got ${maxConcurrency}`);
  }
  const scaled = ESM_INITIAL_BATCHES + Math.floor((Math.max(0, msSinceBusy) / 60_000) * ESM_SCALE_UP_PER_MINUTE);
  return Math.min(scaled, ESM_MAX_BATCHES, maxConcurrency ?? ESM_MAX_BATCHES);
}
