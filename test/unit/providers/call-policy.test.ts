import { describe, expect, it } from 'vitest';
import { CallPolicy, SCALE_FROM_ZERO_BUDGET_MS } from '#providers/call-policy.ts';
import { ProviderCallError, classifySdkError, httpFailure } from '#providers/failures.ts';
import { resolveOptions, type ProviderOptions } from '#providers/options.ts';

function policy(opts: ProviderOptions = {}): { policy: CallPolicy; delays: number[] } {
  const delays: number[] = [];
  const resolved = resolveOptions({ retryBaseMs: 100, sleep: async (ms) => void delays.push(ms), ...opts });
  return { policy: new CallPolicy(resolved, (e) => classifySdkError(e, Date.now())), delays };
}

const throttled = (): ProviderCallError => new ProviderCallError('HTTP 429', { retryable: true, status: 429 });

describe('CallPolicy', () => {
  it('backs off exponentially with full jitter under the cap', () => {
    const { policy: p } = policy({ random: () => 0.999_999, retryMaxDelayMs: 1000 });
    expect([1, 2, 3, 4, 5].map((n) => p.backoffMs(n))).toEqual([100, 200, 400, 800, 1000]);
    const { policy: low } = policy({ random: () => 0 });
    expect(low.backoffMs(4)).toBe(0);
  });

  it('waits what Retry-After says, capped', () => {
    const { policy: p } = policy({ retryAfterCapMs: 5000, random: () => 0 });
    expect(p.backoffMs(1, 2000)).toBe(2000);
    expect(p.backoffMs(1, 90_000)).toBe(5000);
  });

  it('adds up to half of Retry-After again in jitter, so throttled callers do not retry in lockstep', () => {
    const draws = [0, 0.5, 0.999_999];
    const { policy: p } = policy({ random: () => draws.shift() ?? 0 });
    expect([p.backoffMs(1, 2000), p.backoffMs(1, 2000), p.backoffMs(1, 2000)]).toEqual([2000, 2500, 3000]);
  });

  it('keeps retrying throttling past maxRetries by default, within the wait budget', async () => {
    const delays: number[] = [];
    const resolved = resolveOptions({
      retryBaseMs: 1000,
      retryMaxDelayMs: 20_000,
      random: () => 1 - 1e-9,
      waitBudgetMs: 60_000,
      sleep: async (ms) => void delays.push(ms),
    });
    const p = new CallPolicy(resolved, (e) => classifySdkError(e, Date.now()));
    let calls = 0;

    const err = await p
      .call(async () => {
        calls += 1;
        throw throttled();
      })
      .catch((e: unknown) => e);

    expect(err).toMatchObject({ retryable: true, status: 429 });
    // 1 + 2 + 4 + 8 + 16 + 20 = 51 s of waiting; the next 20 s would pass the 60 s budget.
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 20_000]);
    expect(calls).toBe(7);
  });

  it('waits for an inference component scaling out from zero for minutes, past the throttling budget and --max-retries', async () => {
    const delays: number[] = [];
    // The user's --max-retries 3 and the default 180 s throttling budget bound throttling, not this wait.
    const resolved = resolveOptions({ maxRetries: 3, random: () => 0, sleep: async (ms) => void delays.push(ms) });
    const p = new CallPolicy(resolved, (e) => classifySdkError(e, Date.now()));
    const noCapacity = Object.assign(
      new Error(
        'Inference Component has no capacity to process this request. ApplicationAutoScaling may be in-progress (if configured) or try to increase the capacity by invoking UpdateInferenceComponentRuntimeConfig API.',
      ),
      { name: 'ValidationError', $fault: 'client', $metadata: { httpStatusCode: 400 } },
    );
    let calls = 0;
    // AWS measured about 6 minutes to a serving copy of a 70B model: 24 refusals 15 s apart.
    const outcome = await p.call(async () => {
      calls += 1;
      if (calls <= 24) throw noCapacity;
      return 'ok';
    });
    expect(outcome.value).toBe('ok');
    expect(delays.reduce((a, b) => a + b, 0)).toBe(360_000);

    // A component that never comes back fails once SCALE_FROM_ZERO_BUDGET_MS of waiting is spent.
    delays.length = 0;
    const err = await p.call(async () => Promise.reject(noCapacity)).catch((e: unknown) => e);
    expect(err).toMatchObject({ retryable: true });
    expect(String(err)).toMatch(/no capacity/);
    expect(delays.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(SCALE_FROM_ZERO_BUDGET_MS);
    expect(delays.reduce((a, b) => a + b, 0)).toBeGreaterThan(SCALE_FROM_ZERO_BUDGET_MS - 15_000);
  });

  it('stops retrying a non-throttling failure at maxRetries', async () => {
    const { policy: p } = policy({ maxRetries: 2 });
    let calls = 0;

    await p
      .call(async () => {
        calls += 1;
        throw new ProviderCallError('HTTP 503', { retryable: true, status: 503 });
      })
      .catch(() => undefined);

    expect(calls).toBe(3);
  });

  it('halves its concurrency on throttling and grows it back with successes', async () => {
    const { policy: p } = policy({ concurrency: 8, random: () => 0 });
    let throttle = true;
    const attempt = async (): Promise<string> => {
      if (throttle) {
        throttle = false;
        throw throttled();
      }
      return 'ok';
    };

    await p.call(attempt);
    expect(p.concurrencyLimit).toBe(4);
    for (let i = 0; i < 40; i++) await p.call(async () => 'ok');
    expect(p.concurrencyLimit).toBe(8);
  });

  it('halves its concurrency on OpenAI’s 503 "Slow Down" as on a 429', async () => {
    const { policy: p } = policy({ concurrency: 8, random: () => 0 });
    let slow = true;

    await p.call(async () => {
      if (slow) {
        slow = false;
        throw httpFailure(503, 'Slow Down', null, 0, 'slow_down');
      }
      return 'ok';
    });

    expect(p.concurrencyLimit).toBe(4);
  });

  it('counts the tokens of billed attempts that failed', async () => {
    const { policy: p } = policy({ random: () => 0 });
    let calls = 0;

    const out = await p.call(async () => {
      calls += 1;
      if (calls === 1) throw new ProviderCallError('malformed', { retryable: true, billed: { promptTokens: 10, completionTokens: 3 } });
      return 'ok';
    });

    expect(out.billed).toEqual({ promptTokens: 10, completionTokens: 3 });
  });

  it('counts attempts until success', async () => {
    const { policy: p, delays } = policy({ random: () => 0.5 });
    let calls = 0;

    const out = await p.call(async () => {
      calls += 1;
      if (calls < 3) throw throttled();
      return 'done';
    });

    expect(out).toMatchObject({ value: 'done', attempts: 3 });
    expect(delays).toEqual([50, 100]);
  });

  it('stops at the first non-retryable failure', async () => {
    const { policy: p } = policy();
    let calls = 0;

    const err = await p
      .call(async () => {
        calls += 1;
        throw new ProviderCallError('HTTP 400: bad', { retryable: false, status: 400 });
      })
      .catch((e: unknown) => e);

    expect(calls).toBe(1);
    expect(err).toMatchObject({ retryable: false, status: 400, attempts: 1 });
  });

  it('ends an attempt that ignores its abort signal at the hard timeout', async () => {
    const { policy: p } = policy({ timeoutMs: 50, maxRetries: 0 });

    const err = await p.call(() => new Promise<never>(() => undefined)).catch((e: unknown) => e);

    expect(err).toMatchObject({ retryable: true, message: 'no response within 50 ms' });
  });

  it('aborts the attempt signal on timeout', async () => {
    const { policy: p } = policy({ timeoutMs: 50, maxRetries: 0 });
    let seen: AbortSignal | undefined;

    await p
      .call(
        (signal) =>
          new Promise<never>(() => {
            seen = signal;
          }),
      )
      .catch(() => undefined);

    expect(seen?.aborted).toBe(true);
  });

  it('does not retry once the caller cancels', async () => {
    const { policy: p } = policy();
    const controller = new AbortController();
    let calls = 0;

    const err = await p
      .call(async () => {
        calls += 1;
        controller.abort();
        throw throttled();
      }, controller.signal)
      .catch((e: unknown) => e);

    expect(calls).toBe(1);
    expect(err).toMatchObject({ message: expect.stringContaining('cancelled') });
  });

  it('never runs more attempts at once than its concurrency', async () => {
    const { policy: p } = policy({ concurrency: 2 });
    let running = 0;
    let peak = 0;
    let finished = 0;
    const gates: (() => void)[] = [];
    const calls = Array.from({ length: 5 }, () =>
      p.call(async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running -= 1;
        finished += 1;
      }),
    );
    // Release the gates one by one as attempts arrive.
    while (finished < 5) {
      await new Promise((r) => setImmediate(r));
      gates.shift()?.();
    }
    await Promise.all(calls);

    expect(peak).toBe(2);
  });
});
