/**
 * The generate stage's SQS event source mapping: how many messages one invocation takes (its
 * batch) and how many invocations run at once (`maxConcurrency`), from the calls in flight a
 * user configured.
 *
 * A generate invocation is almost all waiting: it bills until the slowest model call of its batch
 * ends, so a batch of 12 bills that wait once for 12 items where a batch of 5 billed it for 5. The
 * provider's rate limit sees the calls in flight, `maxConcurrency × batch`; so the mapping takes
 * the largest batch it can while never exceeding the calls in flight the user configured.
 *
 * The user's knob is context `generateMaxConcurrency` (infra/config.ts; `--generate-concurrency`
 * for the dry run and the simulation). Up to issue 35 it was the mapping's `maxConcurrency` with
 * a fixed batch of {@link GENERATE_CALLS_PER_SETTING}, documented as "`generateMaxConcurrency` × 5
 * calls in flight" (docs/aws.md "Model quotas"): it keeps that meaning, the calls in flight, and
 * the mapping's own `maxConcurrency` and batch now follow from it.
 *
 * AWS facts (AWS Lambda Developer Guide, "Lambda parameters for Amazon SQS event source mappings",
 * docs.aws.amazon.com/lambda/latest/dg/services-sqs-parameters.html, and the Lambda API's
 * MaximumBatchingWindowInSeconds, read 2026-12-07): a standard queue's BatchSize goes to 10,000,
 * but above 10 MaximumBatchingWindowInSeconds must be at least 1; the window is 0–300 s. The
 * mapping's ScalingConfig MaximumConcurrency is 2–1,000 (concurrency-budget.ts).
 */
import { MAPPING_MAX_CONCURRENCY, MAPPING_MIN_CONCURRENCY } from './concurrency-budget.ts';
import { GENERATE_BATCH_SIZE } from './retry-budget.ts';

/** Model calls in flight per unit of `generateMaxConcurrency`: the batch every generate invocation took before issue 35's larger batches. */
export const GENERATE_CALLS_PER_SETTING = 5;
/** The largest batch an SQS mapping takes without a batching window. */
export const SQS_UNWINDOWED_MAX_BATCH = 10;
/** The batching window of a batch above {@link SQS_UNWINDOWED_MAX_BATCH}: AWS's least, 1 s (a queue holding a batch's worth invokes at once). */
export const GENERATE_BATCH_WINDOW_S = 1;

/** The generate mapping as infra/pipeline.ts synthesizes it and the simulation deploys it. */
export interface GenerateMapping {
  /** Messages (items, one model call each) per invocation. */
  batchSize: number;
  /** MaximumBatchingWindowInSeconds: 0 up to a batch of 10, {@link GENERATE_BATCH_WINDOW_S} above. */
  maxBatchingWindowS: number;
  /** The mapping's ScalingConfig MaximumConcurrency: invocations at once. */
  maxConcurrency: number;
  /** `maxConcurrency × batchSize`: never more than the calls in flight configured. */
  callsInFlight: number;
}

/**
 * The mapping for `generateMaxConcurrency` (calls in flight: it × {@link GENERATE_CALLS_PER_SETTING}):
 * the fewest invocations (at least the mapping's minimum of 2) whose batches, each at most
 * {@link GENERATE_BATCH_SIZE} (the calls one invocation makes at once, retry-budget.ts), hold the
 * calls; then the largest even batch within the calls.
 * @throws RangeError when `generateMaxConcurrency` is not a positive integer
 * @example
 * generateMapping(5)   // { batchSize: 12, maxBatchingWindowS: 1, maxConcurrency: 2, callsInFlight: 24 } (was 5 × 5 = 25)
 * generateMapping(2)   // { batchSize: 5, maxBatchingWindowS: 0, maxConcurrency: 2, callsInFlight: 10 }
 * generateMapping(300) // { batchSize: 25, maxBatchingWindowS: 1, maxConcurrency: 60, callsInFlight: 1500 }
 */
export function generateMapping(generateMaxConcurrency: number): GenerateMapping {
  if (!Number.isInteger(generateMaxConcurrency) || generateMaxConcurrency < 1) {
    throw new RangeError(`generateMaxConcurrency must be a positive integer, got ${String(generateMaxConcurrency)}`);
  }
  const calls = generateMaxConcurrency * GENERATE_CALLS_PER_SETTING;
  const maxConcurrency = Math.min(MAPPING_MAX_CONCURRENCY, Math.max(MAPPING_MIN_CONCURRENCY, Math.ceil(calls / GENERATE_BATCH_SIZE)));
  const batchSize = Math.min(GENERATE_BATCH_SIZE, Math.floor(calls / maxConcurrency));
  return {
    batchSize,
    maxBatchingWindowS: batchSize > SQS_UNWINDOWED_MAX_BATCH ? GENERATE_BATCH_WINDOW_S : 0,
    maxConcurrency,
    callsInFlight: maxConcurrency * batchSize,
  };
}

/**
 * The mapping as it was before issue 35's larger batches: `generateMaxConcurrency` invocations of
 * {@link GENERATE_CALLS_PER_SETTING} messages each (the simulation's `--without generate-batch`).
 */
export function unbatchedGenerateMapping(generateMaxConcurrency: number): GenerateMapping {
  return {
    batchSize: GENERATE_CALLS_PER_SETTING,
    maxBatchingWindowS: 0,
    maxConcurrency: generateMaxConcurrency,
    callsInFlight: generateMaxConcurrency * GENERATE_CALLS_PER_SETTING,
  };
}
