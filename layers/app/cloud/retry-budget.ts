/**
 * Retry budgets inside the generate function's timeout. A provider call that is still
 * retrying when Lambda stops the function leaves its message to come back: the batch is then
 * generated — and paid — twice. So the cloud builds providers whose worst case (every attempt
 * timing out, every wait at its cap) ends well before the function's timeout, and with room
 * for every message of a batch at once (no call waits behind another for a slot).
 */
import type { ProviderOptions } from '#providers/index.ts';

/** Messages per generate invocation (the event source's batch size in infra/pipeline.ts). */
export const GENERATE_BATCH_SIZE = 5;
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

/** The longest one call can take: every attempt hits the timeout, every wait the larger cap. */
export function worstCaseCallMs(options: Required<Pick<ProviderOptions, 'timeoutMs' | 'maxRetries' | 'retryMaxDelayMs' | 'retryAfterCapMs'>>): number {
  return (options.maxRetries + 1) * options.timeoutMs + options.maxRetries * Math.max(options.retryMaxDelayMs, options.retryAfterCapMs);
}
