// The generate stage's provider retries end inside the function's timeout (a call still
// retrying when Lambda stops the function would be generated, and paid, twice).
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from '#providers/index.ts';
import {
  GENERATE_BATCH_SIZE,
  GENERATE_MAX_RECEIVE_COUNT,
  GENERATE_PROVIDER_OPTIONS,
  GENERATE_TIMEOUT_MS,
  quotaBackoffSeconds,
  RECORD_HEADROOM_MS,
  SQS_MAX_VISIBILITY_S,
  worstCaseCallMs,
} from '#app/cloud/retry-budget.ts';
import { CallPolicy } from '#providers/call-policy.ts';
import { ProviderCallError } from '#providers/failures.ts';
import { resolveOptions } from '#providers/options.ts';
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

  it('bounds what the real call policy takes: every attempt answered 429 at its timeout with a long Retry-After, the jitter at its top', async () => {
    let clock = 0;
    const options = resolveOptions({
      ...GENERATE_PROVIDER_OPTIONS,
      random: () => 0.999999,
      now: () => clock,
      sleep: (ms) => ((clock += ms), Promise.resolve()),
    });
    const policy = new CallPolicy(options, (err) => err as ProviderCallError);
    const attempt = (): Promise<never> => {
      clock += GENERATE_PROVIDER_OPTIONS.timeoutMs;
      return Promise.reject(new ProviderCallError('ThrottlingException', { retryable: true, throttled: true, status: 429, retryAfterMs: 600_000 }));
    };
    await expect(policy.call(attempt)).rejects.toThrow(/ThrottlingException/);
    // Three attempts of 60 s and two Retry-After waits of 20 s capped plus half again in jitter.
    expect(clock).toBeGreaterThan(239_000);
    expect(clock).toBeLessThanOrEqual(worstCaseCallMs(GENERATE_PROVIDER_OPTIONS));
    expect(worstCaseCallMs(GENERATE_PROVIDER_OPTIONS) + RECORD_HEADROOM_MS).toBeLessThanOrEqual(GENERATE_TIMEOUT_MS);
  });

  it('would not with the local defaults (why the cloud sets its own)', () => {
    const local = { timeoutMs: DEFAULT_TIMEOUT_MS, maxRetries: DEFAULT_MAX_RETRIES, retryMaxDelayMs: 20_000, retryAfterCapMs: 60_000 };
    expect(worstCaseCallMs(local)).toBeGreaterThan(GENERATE_TIMEOUT_MS);
  });
});

describe('the back-off of a throttled item', () => {
  it('hides it for 60 s on its first receive, doubling with each return up to 15 minutes, ±20 %', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 50].map((n) => quotaBackoffSeconds(n, mid))).toEqual([60, 120, 240, 480, 900, 900, 900]);
    expect(quotaBackoffSeconds(1, () => 0)).toBe(48);
    expect(quotaBackoffSeconds(1, () => 0.999999)).toBe(72);
  });

  it('stays inside SQS’s 12-hour visibility limit and the generate queue’s 50 receives hold ~11 hours of waiting', () => {
    expect(quotaBackoffSeconds(1_000, () => 0.999999)).toBeLessThanOrEqual(SQS_MAX_VISIBILITY_S);
    const waited = Array.from({ length: GENERATE_MAX_RECEIVE_COUNT - 1 }, (_, i) => quotaBackoffSeconds(i + 1, () => 0.5)).reduce((a, b) => a + b, 0);
    expect(waited / 3600).toBeGreaterThan(11);
  });
});
