/**
 * `anthropic:<model>` against a fake Messages API (test/fakes/wire-servers/anthropic-server.ts):
 * headers, body, model rules, retries on 429/529 with retry-after, the spend cap not retried,
 * and an ABRICOT run in digit-parse mode priced from the table.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHome, packageRoot } from '#app/local/home.ts';
import { requireManifest, runLocal } from '#app/local/run.ts';
import type { Provider } from '#core/models/provider.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import { createNetworkProvider, type ProviderOptions } from '#providers/index.ts';
import { startAnthropicServer, type FakeServer } from '../../fakes/wire-servers/index.ts';
import { chatRequest, recordingRetries, useProviderSuite } from './harness.ts';

const cleanups = useProviderSuite();
const ENV = { ANTHROPIC_API_KEY: 'sk-ant-test' };

async function setUp(model: string, server: Promise<FakeServer>, extra: ProviderOptions = {}): Promise<{ server: FakeServer; provider: Provider }> {
  const s = await server;
  cleanups.push(() => s.close());
  const provider = createNetworkProvider(`anthropic:${model}`, { endpointUrl: s.url, env: ENV, ...extra });
  if (!provider) throw new Error('no provider');
  return { server: s, provider };
}

describe('anthropic provider', () => {
  it('posts to /v1/messages with x-api-key and anthropic-version, the system apart, and reads text and usage', async () => {
    const { server, provider } = await setUp('claude-3-5-haiku-20241022', startAnthropicServer({ apiKey: 'sk-ant-test', answer: () => 'Fa 4.' }));

    const g = await provider.generate(chatRequest({ params: { temperature: 0, topP: 1, maxTokens: 32, stop: ['###'] } }));

    const req = server.requests[0];
    expect(req?.path).toBe('/v1/messages');
    expect(req?.headers['x-api-key']).toBe('sk-ant-test');
    expect(req?.headers['anthropic-version']).toBe('2023-06-01');
    expect(req?.body).toEqual({
      model: 'claude-3-5-haiku-20241022',
      max_tokens: 32,
      system: 'Sei un assistente preciso.',
      messages: [{ role: 'user', content: 'Quanto fa due più due?' }],
      temperature: 0,
      stop_sequences: ['###'],
    });
    expect(g).toMatchObject({ text: 'Fa 4.', finishReason: 'end_turn', usage: { completionTokens: 4 } });
  });

  it('keeps whitespace-only stops out of the request and cuts the answer at them; Claude 4.5 gets no top_p beside temperature', async () => {
    const { server, provider } = await setUp('claude-haiku-4-5', startAnthropicServer({ answer: () => '3\nperché' }));

    const g = await provider.generate(chatRequest({ params: { temperature: 0.2, topP: 0.9, maxTokens: 8, stop: ['\n'] } }));

    expect(g.text).toBe('3');
    expect(server.requests[0]?.body).not.toHaveProperty('stop_sequences');
    expect(server.requests[0]?.body).not.toHaveProperty('top_p');
  });

  it('sends Claude Opus 4.7 no sampling parameters', async () => {
    const { server, provider } = await setUp('claude-opus-4-7', startAnthropicServer({ answer: () => '4' }));
    await expect(provider.generate(chatRequest())).resolves.toMatchObject({ text: '4' });
    expect(server.requests[0]?.body).not.toHaveProperty('temperature');
  });

  it('retries 429 rate_limit_error after its retry-after and 529 overloaded_error, backing off', async () => {
    const retries = recordingRetries();
    const { server, provider } = await setUp(
      'claude-haiku-4-5',
      startAnthropicServer({
        answer: () => 'ok',
        faults: [
          { kind: 'throttle', retryAfter: '2' },
          { kind: 'status', status: 529, message: 'Overloaded' },
        ],
      }),
      retries.options,
    );

    const g = await provider.generate(chatRequest());

    expect(g.attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
    expect(retries.delays[0]).toBe(2000);
  });

  it('does not retry a 429 that says the monthly spend cap is reached', async () => {
    const retries = recordingRetries();
    const { server, provider } = await setUp(
      'claude-haiku-4-5',
      startAnthropicServer({ faults: [{ kind: 'status', status: 429, type: 'enforced_spend_limit_reached', message: 'spend limit reached' }] }),
      retries.options,
    );
    await expect(provider.generate(chatRequest())).rejects.toMatchObject({ retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('names the missing key variable before any call', async () => {
    const s = await startAnthropicServer();
    cleanups.push(() => s.close());
    const provider = createNetworkProvider('anthropic:claude-haiku-4-5', { endpointUrl: s.url, env: {} });
    await expect(provider?.generate(chatRequest())).rejects.toMatchObject({ name: 'InputError', message: expect.stringContaining('ANTHROPIC_API_KEY') });
    expect(s.requests).toHaveLength(0);
  });

  it('runs ABRICOT in digit-parse mode (no log-probabilities) with a cost from the price table', async () => {
    const s = await startAnthropicServer({ answer: () => '3' });
    cleanups.push(() => s.close());
    const home = openHome(mkdtempSync(join(tmpdir(), 'anthropic-')));

    const [result] = await runLocal(parseRunSpec({ benchmark: 'sample/abricot', model: 'anthropic:claude-haiku-4-5', limit: 2, maxCostUsd: 1 }), {
      home,
      packageRoot: packageRoot(),
      providerOptions: { env: ENV, endpointUrl: s.url },
      jobs: 1,
    });

    const manifest = await requireManifest(home, result?.run_id ?? '');
    expect(manifest.likert_mode).toBe('digit-parse');
    expect(result?.status).toBe('completed');
  });
});
