/**
 * A provider that drops connections and cuts bodies: a socket destroyed mid-response, a
 * Content-Length longer than the body before the connection closes, a response stream that
 * ends without its final event. Each is retried (never scored as a truncated answer, never a
 * crash), and once the retries are spent the item is SE with the reason.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHome, packageRoot } from '#app/local/home.ts';
import { runLocal } from '#app/local/run.ts';
import { ProviderError } from '#core/errors.ts';
import { readItems } from '#core/report/aggregate.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import { createNetworkProvider } from '#providers/index.ts';
import { startOpenAiServer, startSageMakerServer, type Fault } from '../../fakes/wire-servers/index.ts';
import { PROVIDER_CASES, chatRequest, useProviderSuite } from './harness.ts';

const cleanups = useProviderSuite();
const ANSWER = 'La risposta è quattro, come sempre.';
const quick = { retryBaseMs: 1, random: () => 0, sleep: async () => undefined, timeoutMs: 10_000 };

describe.each(PROVIDER_CASES)('$name when the connection breaks mid-response', (c) => {
  it.each<[string, Fault]>([
    ['a socket destroyed mid-body', { kind: 'cut' }],
    ['a Content-Length longer than the body, then a close', { kind: 'short' }],
  ])('retries %s and returns the whole answer', async (_name, fault) => {
    const server = await c.start({ faults: [fault, fault], answer: () => ANSWER });
    cleanups.push(() => server.close());
    const provider = createNetworkProvider(c.spec(server), { ...c.options(server), ...quick, maxRetries: 3 });

    const g = await provider?.generate(chatRequest());

    expect(g?.text).toBe(ANSWER);
    expect(g?.attempts).toBe(3);
    expect(server.requests.map((r) => r.fault)).toEqual([fault.kind, fault.kind, undefined]);
  });

  it('fails as retryable with the reason once its retries are spent', async () => {
    const server = await c.start({ faults: Array.from({ length: 4 }, () => ({ kind: 'cut' as const })), answer: () => ANSWER });
    cleanups.push(() => server.close());
    const provider = createNetworkProvider(c.spec(server), { ...c.options(server), ...quick, maxRetries: 2 });

    const err = await provider?.generate(chatRequest()).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).retryable).toBe(true);
    expect((err as Error).message).toMatch(/terminated|socket|aborted|closed|ECONNRESET|premature|malformed|JSON|truncated/i);
    expect((err as Error).message).toMatch(/after 3 attempts/);
  });
});

describe.each([
  ['sagemaker#tgi', 'sagemaker:my-tgi-endpoint#tgi', /TGI stream ended after 3 tokens without its final event/],
  ['sagemaker#openai', 'sagemaker:my-vllm-endpoint#openai', /chat stream ended after 3 chunks without a finish_reason/],
])('%s when a response stream ends without its final event', (_name, spec, reason) => {
  const long = chatRequest({ params: { temperature: 0, topP: 1, maxTokens: 2048, stop: [] } });

  it('retries the stream instead of scoring the text so far', async () => {
    const server = await startSageMakerServer({ answer: () => ANSWER, streamError: { afterTokens: 3, times: 2, ends: true } });
    cleanups.push(() => server.close());
    const provider = createNetworkProvider(spec, { endpointUrl: server.url, ...quick, maxRetries: 3 });

    const g = await provider?.generate(long);

    expect(g?.text).toBe(ANSWER);
    expect(g?.attempts).toBe(3);
  });

  it('fails as retryable naming the truncation once its retries are spent', async () => {
    const server = await startSageMakerServer({ answer: () => ANSWER, streamError: { afterTokens: 3, times: 10, ends: true } });
    cleanups.push(() => server.close());
    const provider = createNetworkProvider(spec, { endpointUrl: server.url, ...quick, maxRetries: 1 });

    const err = await provider?.generate(long).then(
      () => undefined,
      (e: unknown) => e as ProviderError,
    );

    expect(err?.retryable).toBe(true);
    expect(err?.message).toMatch(reason);
  });
});

describe('a run against a server that keeps dropping connections', () => {
  it('completes, recording the items it could not get as SE with the reason, never as answers', async () => {
    const faults = Array.from({ length: 400 }, () => ({ kind: 'cut' as const }));
    const server = await startOpenAiServer({ flavour: 'openai-chat', faults, answer: () => '3' });
    cleanups.push(() => server.close());
    const home = openHome(mkdtempSync(join(tmpdir(), 'cut-run-')));

    const [result] = await runLocal(
      parseRunSpec({ benchmark: 'sample/abricot', model: `openai:${server.url}#gpt-4o-mini`, limit: 3, likertMode: 'digit-parse' }),
      { home, packageRoot: packageRoot(), providerOptions: { ...quick, maxRetries: 1 }, jobs: 1 },
    );

    expect(result?.status).toBe('completed');
    const docs = await readItems(home.store, result?.run_id ?? '');
    expect(docs).toHaveLength(3);
    for (const d of docs) {
      expect(d.record.verdict).toBe('SE');
      expect(d.record.error).toMatch(/after 2 attempts/);
    }
  }, 60_000);
});
