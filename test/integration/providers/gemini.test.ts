/**
 * `gemini:` against the fake Gemini OpenAI-compatible endpoint: Bearer key, chat only, the
 * capability check on models with and without log-probabilities, array-wrapped errors
 * (429 retried after its RetryInfo delay, 400 failing fast with Google's message), the
 * 5-stop cap and thinking that eats a small max_tokens.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError } from '#core/errors.ts';
import { createNetworkProvider } from '#providers/index.ts';
import { favourDigit, startGeminiServer, type GeminiServer, type GeminiServerOptions } from '../../fakes/wire-servers/index.ts';
import { chatRequest, recordingRetries } from './harness.ts';

const servers: GeminiServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function gemini(options: Partial<GeminiServerOptions> = {}): Promise<GeminiServer> {
  const server = await startGeminiServer({
    apiKey: 'g-key',
    models: {
      'gemini-3.5-flash': { logprobs: true },
      'gemini-2.5-flash': { thinking: 40, canDisableThinking: true },
      'gemini-2.5-pro': { thinking: 4000, lowThinking: 40 },
    },
    answer: () => 'quattro',
    ...options,
  });
  servers.push(server);
  return server;
}
const env = { GEMINI_API_KEY: 'g-key' };
const likert = {
  taskId: 't',
  prompt: { style: 'chat' as const, messages: [{ role: 'user' as const, content: 'Da 1 a 5? Risposta:' }] },
  choices: ['1', '2', '3', '4', '5'],
};

describe('the gemini: provider', () => {
  it('posts chat/completions under the base URL with the key as a Bearer token', async () => {
    const server = await gemini();
    const provider = createNetworkProvider(`gemini:${server.url}#gemini-3.5-flash`, { env });

    expect((await provider?.generate(chatRequest()))?.text).toBe('quattro');
    expect(server.requests[0]).toMatchObject({ path: '/v1beta/openai/chat/completions', body: { model: 'gemini-3.5-flash' } });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer g-key');
  });

  it('sends a completion-style prompt in its chat form (no /completions route)', async () => {
    const server = await gemini();
    const provider = createNetworkProvider(`gemini:${server.url}#gemini-3.5-flash`, { env });

    await provider?.generate(chatRequest({ prompt: { style: 'completion', messages: [], completion: 'fun f(): Int {\n' } }));

    expect(server.requests.map((r) => r.path)).toEqual(['/v1beta/openai/chat/completions']);
  });

  it('sends at most 5 stop sequences and cuts the answer at the rest', async () => {
    const server = await gemini({ answer: () => 'uno due tre' });
    const provider = createNetworkProvider(`gemini:${server.url}#gemini-3.5-flash`, { env });
    const params = { temperature: 0, topP: 1, maxTokens: 64, stop: ['x', 'y', 'z', 'w', 'k', ' due'] };

    const out = await provider?.generate(chatRequest({ params }));

    expect((server.requests[0]?.body as { stop: string[] }).stop).toEqual(['x', 'y', 'z', 'w', 'k']);
    expect(out?.text).toBe('uno');
    expect(provider?.adaptParams?.(params, 'chat').warnings.join('\n')).toMatch(/only the first 5 stop sequences/);
  });

  it('gets next-token mode on a model with log-probabilities', async () => {
    const server = await gemini({ logprob: favourDigit(() => '4') });
    const provider = createNetworkProvider(`gemini:${server.url}#gemini-3.5-flash`, { env });

    const probe = await provider?.probeLikert?.();
    const scores = await provider?.scoreChoices?.({ ...likert, scoring: { mode: 'next-token', method: 'chat-top-logprobs', reason: 'test', topLogprobs: 20 } });

    expect(probe?.supported).toEqual([{ mode: 'next-token', method: 'chat-top-logprobs', topLogprobs: 20 }]);
    expect(probe?.findings.join('\n')).toMatch(/chat model \(capabilities table\)/);
    expect(scores?.logprobs.indexOf(Math.max(...(scores?.logprobs ?? [])))).toBe(3);
  });

  it('falls back to digit-parse where "Logprobs is not enabled", recording Google’s message', async () => {
    const server = await gemini();
    const provider = createNetworkProvider(`gemini:${server.url}#gemini-2.5-flash`, { env });

    const probe = await provider?.probeLikert?.();

    expect(probe?.supported).toEqual([]);
    expect(probe?.findings.join('\n')).toMatch(
      /no next-token log-probabilities: the server refused logprobs \(HTTP 400: Logprobs is not enabled for models\/gemini-2\.5-flash/,
    );
    // Learned from the first 400: the call is sent again without logprobs, never a second refusal (top_logprobs 5).
    expect(server.requests.map((r) => 'logprobs' in (r.body as object))).toEqual([true, false]);
  });

  it('retries an array-wrapped 429 RESOURCE_EXHAUSTED after its RetryInfo delay, never as an answer', async () => {
    const server = await gemini({ faults: [{ kind: 'throttle' }], retryDelay: '7s' });
    const retries = recordingRetries();
    const provider = createNetworkProvider(`gemini:${server.url}#gemini-3.5-flash`, { env, ...retries.options });

    const out = await provider?.generate(chatRequest());

    expect(out?.text).toBe('quattro');
    expect(out?.attempts).toBe(2);
    expect(retries.delays).toContain(7000);
  });

  it('retries the no-details 429 ("Resource has been exhausted", page-assist#406) with back-off, no retry delay given', async () => {
    const server = await gemini({ faults: [{ kind: 'throttle' }] });
    const retries = recordingRetries();
    const provider = createNetworkProvider(`gemini:${server.url}#gemini-3.5-flash`, { env, ...retries.options });

    const out = await provider?.generate(chatRequest());

    expect(out?.attempts).toBe(2);
    expect(retries.delays).toHaveLength(1);
  });

  it('fails at once on a per-day quota 429 (QuotaFailure …PerDay…) instead of using up the retries', async () => {
    const server = await gemini({ faults: [0, 1, 2, 3].map(() => ({ kind: 'throttle' as const })), perDay: true });
    const provider = createNetworkProvider(`gemini:${server.url}#gemini-3.5-flash`, { env, ...recordingRetries().options, maxRetries: 3 });

    const err = await provider?.generate(chatRequest()).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect((err as ProviderError).retryable).toBe(false);
    expect((err as Error).message).toMatch(/GenerateRequestsPerDayPerProjectPerModel.*You exceeded your current quota/s);
    expect(server.requests).toHaveLength(1);
  });

  it('turns thinking off on 2.5 Flash (reasoning_effort "none"): a small max_tokens still gets the answer', async () => {
    const server = await gemini();
    const provider = createNetworkProvider(`gemini:${server.url}#gemini-2.5-flash`, { env });
    const params = { temperature: 0, topP: 1, maxTokens: 4, stop: ['\n'] };

    const out = await provider?.generate(chatRequest({ params }));

    expect(server.requests[0]?.body).toMatchObject({ reasoning_effort: 'none' });
    expect(provider?.adaptParams?.(params, 'chat').warnings).toEqual([]);
    expect(out?.text).toBe('quattro');
  });

  it('bills the thinking as output when total_tokens holds it but completion_tokens does not', async () => {
    const params = { temperature: 0, topP: 1, maxTokens: 256, stop: [] };
    const billed: number[] = [];
    for (const thoughtsInTotalOnly of [false, true]) {
      const server = await gemini({ thoughtsInTotalOnly });
      const provider = createNetworkProvider(`gemini:${server.url}#gemini-2.5-pro`, { env });
      billed.push((await provider?.generate(chatRequest({ params })))?.usage.completionTokens ?? 0);
    }
    expect(billed[0]).toBeGreaterThan(40);
    expect(billed[1]).toBe(billed[0]);
  });

  it('retries 503 UNAVAILABLE (overloaded)', async () => {
    const server = await gemini({ faults: [{ kind: 'unavailable' }] });
    const provider = createNetworkProvider(`gemini:${server.url}#gemini-3.5-flash`, { env, ...recordingRetries().options });
    expect((await provider?.generate(chatRequest()))?.attempts).toBe(2);
  });

  it('fails fast on a wrong key with Google’s message from the array-wrapped body', async () => {
    const server = await gemini();
    const provider = createNetworkProvider(`gemini:${server.url}#gemini-3.5-flash`, { env: { GEMINI_API_KEY: 'wrong' }, maxRetries: 3 });

    const err = await provider?.generate(chatRequest()).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).retryable).toBe(false);
    expect((err as Error).message).toMatch(/HTTP 400: API key not valid/);
    expect(server.requests).toHaveLength(1);
  });

  it('asks 2.5 Pro (which cannot stop thinking) for the least, raises max_tokens by that thinking budget and says so', async () => {
    // The fake thinks 40 tokens at "low": 4 + 1024 leaves the answer its room.
    const server = await gemini();
    const provider = createNetworkProvider(`gemini:${server.url}#gemini-2.5-pro`, { env });
    const params = { temperature: 0, topP: 1, maxTokens: 4, stop: ['\n'] };

    const out = await provider?.generate(chatRequest({ params }));

    expect(provider?.adaptParams?.(params, 'chat').warnings.join('\n')).toMatch(/max tokens 4 raised to 1028: gemini-2\.5-pro cannot turn its thinking off/);
    expect(server.requests[0]?.body).toMatchObject({ reasoning_effort: 'low', max_tokens: 1028 });
    expect(out?.text).toBe('quattro');
  });

  it('records an answer left empty by thinking as an error with that reason, billed, never as a wrong answer', async () => {
    // This 2.5 Pro thinks 5000 tokens even at "low": more than 4 + 1024.
    const server = await gemini({ models: { 'gemini-2.5-pro': { thinking: 5000 } } });
    const provider = createNetworkProvider(`gemini:${server.url}#gemini-2.5-pro`, { env });

    const err = await provider?.generate(chatRequest({ params: { temperature: 0, topP: 1, maxTokens: 4, stop: [] } })).then(
      () => undefined,
      (e: unknown) => e as ProviderError,
    );

    expect(err?.message).toMatch(/empty answer: the model spent 1028 tokens thinking and returned no text \(finish_reason "length"\)/);
    expect(err?.retryable).toBe(false);
    expect(err?.billed?.completionTokens).toBe(1028);
  });

  it('refuses to start without GEMINI_API_KEY, naming it', () => {
    expect(() => createNetworkProvider('gemini:gemini-2.5-flash', { env: {} })).toThrow(/GEMINI_API_KEY is not set/);
  });
});
