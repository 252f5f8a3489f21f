import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '#core/errors.ts';
import { createNetworkProvider, type ProviderOptions } from '#providers/index.ts';
import type { Provider } from '#core/models/provider.ts';
import type { FakeServer, FaultOptions } from '../../fakes/wire-servers/index.ts';
import { PROVIDER_CASES, chatRequest, recordingRetries, useFakeAwsEnv, type ProviderCase } from './harness.ts';

let restoreEnv: () => void;
beforeAll(() => {
  restoreEnv = useFakeAwsEnv();
});
afterAll(() => restoreEnv());

const open: { server: FakeServer; provider: Provider }[] = [];
afterEach(async () => {
  for (const { server, provider } of open.splice(0)) {
    await provider.close?.();
    await server.close();
  }
});

async function setUp(
  c: ProviderCase,
  serverOptions: FaultOptions & { answer?: (prompt: string) => string },
  options: ProviderOptions = {},
): Promise<{ server: FakeServer; provider: Provider }> {
  const server = await c.start(serverOptions);
  const provider = createNetworkProvider(c.spec(server), { timeoutMs: 30_000, ...c.options(server), ...options });
  if (!provider) throw new Error(`no provider for ${c.spec(server)}`);
  open.push({ server, provider });
  return { server, provider };
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe.each(PROVIDER_CASES)('$name provider over its wire format', (c) => {
  it('returns the answer with token usage, latency and one attempt', async () => {
    const { provider } = await setUp(c, { answer: (prompt) => (prompt.includes('due più due') ? 'Fa quattro.' : 'boh') });

    const g = await provider.generate(chatRequest());

    expect(g.text).toBe('Fa quattro.');
    expect(g.usage.completionTokens).toBe(4); // "Fa", " ", "quattro", "."
    expect(g.usage.promptTokens).toBeGreaterThan(0);
    expect(g.latencyMs).toBeGreaterThanOrEqual(0);
    expect(g.attempts).toBe(1);
  });

  it('retries throttling and waits what Retry-After asks', async () => {
    const retries = recordingRetries();
    const { server, provider } = await setUp(c, { faults: [{ kind: 'throttle', retryAfter: '2' }, { kind: 'unavailable' }] }, retries.options);

    const g = await provider.generate(chatRequest());

    expect(g.text).toBe('ok');
    expect(g.attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
    expect(retries.delays[0]).toBe(2000);
    // Without Retry-After the backoff is full jitter under the 1 ms base: at most 2 ms on the second retry.
    expect(retries.delays[1]).toBeLessThanOrEqual(2);
  });

  it('honours a Retry-After given as an HTTP date', async () => {
    const now = Date.UTC(2025, 0, 15, 12, 0, 0);
    const retries = recordingRetries();
    const retryAfter = new Date(now + 30_000).toUTCString();
    const { provider } = await setUp(c, { faults: [{ kind: 'throttle', retryAfter }] }, { ...retries.options, now: () => now });

    const g = await provider.generate(chatRequest());

    expect(g.attempts).toBe(2);
    expect(retries.delays).toEqual([30_000]);
  });

  it('fails retryable once throttling outlasts the retries', async () => {
    const retries = recordingRetries();
    const { server, provider } = await setUp(c, { failFirst: 10 }, { ...retries.options, maxRetries: 3 });

    const err = await failure(provider.generate(chatRequest()));

    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/after 4 attempts/);
    expect(server.requests).toHaveLength(4);
    expect(retries.delays).toHaveLength(3);
  });

  it.each([
    ['malformed JSON', { kind: 'malformed' as const }],
    ['an empty body', { kind: 'empty' as const }],
    ['a reset connection', { kind: 'reset' as const }],
  ])('retries after %s and then succeeds', async (_label, fault) => {
    const retries = recordingRetries();
    const { provider } = await setUp(c, { faults: [fault] }, retries.options);

    const g = await provider.generate(chatRequest());

    expect(g.text).toBe('ok');
    expect(g.attempts).toBe(2);
  });

  it.each([
    ['malformed JSON', { kind: 'malformed' as const }],
    ['an empty body', { kind: 'empty' as const }],
  ])('reports %s as a retryable error once retries run out', async (_label, fault) => {
    const retries = recordingRetries();
    const { provider } = await setUp(c, { faults: [fault, fault] }, { ...retries.options, maxRetries: 1 });

    const err = await failure(provider.generate(chatRequest()));

    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/malformed|empty|JSON|Unexpected|Deserialization/i);
  });

  it('ends a hung connection at the timeout as a retryable error', async () => {
    const retries = recordingRetries();
    const { server, provider } = await setUp(c, { failFirst: 2, fault: { kind: 'hang' } }, { ...retries.options, timeoutMs: 400, maxRetries: 1 });

    const err = await failure(provider.generate(chatRequest()));

    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/no response within 400 ms|timed? ?out|abort/i);
    expect(server.requests).toHaveLength(2);
  });

  it('fails fast on a 403 with the server message', async () => {
    const retries = recordingRetries();
    const { server, provider } = await setUp(
      c,
      { faults: [{ kind: 'status', status: 403, message: 'You are not authorized to invoke this model' }] },
      retries.options,
    );

    const err = await failure(provider.generate(chatRequest()));

    expect(err.retryable).toBe(false);
    expect(err.message).toContain('You are not authorized to invoke this model');
    expect(server.requests).toHaveLength(1);
  });

  it('keeps requests in flight at or under its concurrency cap', async () => {
    const { server, provider } = await setUp(c, { barrier: 3, holdMs: 10_000 }, { concurrency: 3 });

    const results = await Promise.all(Array.from({ length: 9 }, (_, i) => provider.generate(chatRequest({ sample: i }))));

    expect(results.map((r) => r.text)).toEqual(Array(9).fill('ok'));
    expect(server.requests).toHaveLength(9);
    expect(server.maxInFlight()).toBe(3);
  });
});
