// The generate stage's provider retries end inside the function's timeout (a call still
// retrying when Lambda stops the function would be generated, and paid, twice).
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from '#providers/index.ts';
import { GENERATE_BATCH_SIZE, GENERATE_PROVIDER_OPTIONS, GENERATE_TIMEOUT_MS, RECORD_HEADROOM_MS, worstCaseCallMs } from '#app/cloud/retry-budget.ts';
import { STAGE_TIMEOUTS } from '../../../infra/queues.ts';

describe('the generate retry budget', () => {
  it('matches the deployed function timeout', () => {
    expect(GENERATE_TIMEOUT_MS).toBe(STAGE_TIMEOUTS.generate.toMilliseconds());
  });

  it('lets the worst call of a batch end before the timeout, with room to record', () => {
    expect(worstCaseCallMs(GENERATE_PROVIDER_OPTIONS) + RECORD_HEADROOM_MS).toBeLessThanOrEqual(GENERATE_TIMEOUT_MS);
    // Every message of a batch calls at once: none waits for another's slot.
    expect(GENERATE_PROVIDER_OPTIONS.concurrency).toBeGreaterThanOrEqual(GENERATE_BATCH_SIZE);
  });

  it('would not with the local defaults (why the cloud sets its own)', () => {
    const local = { timeoutMs: DEFAULT_TIMEOUT_MS, maxRetries: DEFAULT_MAX_RETRIES, retryMaxDelayMs: 20_000, retryAfterCapMs: 60_000 };
    expect(worstCaseCallMs(local)).toBeGreaterThan(GENERATE_TIMEOUT_MS);
  });
});
