/**
 * Defect 10: a throttling answer backs the provider's calls in flight off, and successes grow
 * them back — for every provider and every way a server says "too many at once": Bedrock's
 * ThrottlingException, an OpenAI-compatible 429 (OpenAI's rate limiter; TGI's "Model is
 * overloaded"), and SageMaker's ModelError wrapping the container's 429 (TGI) or 503
 * (djl-serving's WlmCapacityException). Counted from the
 * server's side: how many requests are in flight as each one arrives.
 */
import { describe, expect, it } from 'vitest';
import { createNetworkProvider } from '#providers/index.ts';
import { startOpenAiServer, startSageMakerServer } from '../../fakes/wire-servers/index.ts';
import { PROVIDER_CASES, chatRequest, useProviderSuite, type ProviderCase } from './harness.ts';

const cleanups = useProviderSuite();

const CASES: ProviderCase[] = [
  ...PROVIDER_CASES,
  {
    name: 'sagemaker#openai (djl-serving LMI: 503 WlmCapacityException)',
    start: (o) => startSageMakerServer({ ...o, container: 'djl-serving' }),
    spec: () => 'sagemaker:my-lmi-endpoint#openai',
    options: (s) => ({ endpointUrl: s.url }),
  },
  { name: 'openai (TGI)', start: (o) => startOpenAiServer({ ...o, flavour: 'tgi' }), spec: (s) => `openai:${s.url}#tgi`, options: () => ({}) },
];
/** The server's room; the provider is configured for four times as many. */
const CAPACITY = 2;
const CONCURRENCY = 16;

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length * q)] ?? 0;
}

describe.each(CASES)('$name under a server that refuses requests past its capacity', (c) => {
  it('backs its requests in flight off to about the capacity, then grows them back once the server has room', async () => {
    const server = await c.start({ capacity: CAPACITY, holdMs: 15, refuseAfterMs: 10 });
    cleanups.push(() => server.close());
    const provider = createNetworkProvider(c.spec(server), {
      ...c.options(server),
      concurrency: CONCURRENCY,
      timeoutMs: 30_000,
      retryBaseMs: 1,
      random: () => 0,
      // Real, short waits, so attempts interleave as they would against a server.
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 3))),
    });
    if (!provider) throw new Error(`no provider for ${c.spec(server)}`);
    cleanups.push(async () => provider.close?.());

    const first = await Promise.all(Array.from({ length: 100 }, (_, i) => provider.generate(chatRequest({ sample: i }))));

    expect(first.map((g) => g.text)).toEqual(Array(100).fill('ok'));
    expect(server.throttled()).toBeGreaterThan(0);
    const throttledPhase = server.inFlightAtArrival();
    // Without the back-off all sixteen permits stay busy (answers and refusals in transit) to the end:
    // 8–12 in flight here, as Bedrock and SageMaker were before their SDK errors were classified in the permit.
    expect(quantile(throttledPhase.slice(Math.floor(throttledPhase.length / 2)), 0.9)).toBeLessThanOrEqual(3 * CAPACITY);

    server.setCapacity(undefined);
    const second = await Promise.all(Array.from({ length: 240 }, (_, i) => provider.generate(chatRequest({ sample: 100 + i }))));

    expect(second.every((g) => g.text === 'ok')).toBe(true);
    const recovered = server.inFlightAtArrival().slice(throttledPhase.length).slice(-60);
    // AIMD grows one permit per round of successes: well past the capacity again within 240 calls.
    expect(Math.max(...recovered)).toBeGreaterThanOrEqual(2 * CAPACITY);
  }, 60_000);
});

// TGI's /invocations streams `generate_stream`'s native error event for the #tgi payload and the
// OpenAI routes' `{"error": {"message", "http_status_code": 422}}` then [DONE] for #openai's messages.
describe.each([
  ['#tgi', 'sagemaker:my-tgi-endpoint#tgi'],
  ['#openai', 'sagemaker:my-tgi-endpoint#openai'],
])('sagemaker%s streaming (RoCode’s 2048 new tokens) past TGI’s capacity', (_payload, spec) => {
  it('takes the overload TGI sends inside a 200 stream as throttling: retried, never scored as an answer', async () => {
    const server = await startSageMakerServer({ capacity: 1, holdMs: 15, answer: () => 'fun main() = println(42)' });
    cleanups.push(() => server.close());
    const provider = createNetworkProvider(spec, {
      endpointUrl: server.url,
      concurrency: 6,
      timeoutMs: 30_000,
      retryBaseMs: 1,
      random: () => 0,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 3))),
    });
    if (!provider) throw new Error('no provider');
    cleanups.push(async () => provider.close?.());

    const out = await Promise.all(
      Array.from({ length: 12 }, (_, i) => provider.generate(chatRequest({ sample: i, params: { temperature: 0, topP: 1, maxTokens: 2048, stop: [] } }))),
    );

    expect(out.map((g) => g.text)).toEqual(Array(12).fill('fun main() = println(42)'));
    expect(server.throttled()).toBeGreaterThan(0);
    expect(out.some((g) => (g.attempts ?? 1) > 1)).toBe(true);
    expect(server.requests.every((r) => r.path.endsWith('/invocations-response-stream'))).toBe(true);
  }, 60_000);
});
