/**
 * `mistral:` against the OpenAI-compatible fake's Mistral row (test/fakes/wire-servers/openai-server.ts
 * `VENDORS.mistral`): the seed sent as `random_seed` (the API refuses `seed` with 422
 * extra_forbidden), `safe_prompt: false` added, the key as a Bearer token and only to the hosts
 * it is for, chat only with digit-parse likert, a 429 retried after its Retry-After.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InputError, ProviderError } from '#core/errors.ts';
import { createNetworkProvider } from '#providers/index.ts';
import { startOpenAiServer, type OpenAiServer, type OpenAiServerOptions } from '../../fakes/wire-servers/index.ts';
import { chatRequest, recordingRetries } from './harness.ts';

const servers: OpenAiServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function mistralServer(options: OpenAiServerOptions = {}): Promise<OpenAiServer> {
  const server = await startOpenAiServer({ flavour: 'mistral', apiKey: 'm-key', model: 'mistral-small-latest', answer: () => 'quattro', ...options });
  servers.push(server);
  return server;
}
const env = { MISTRAL_API_KEY: 'm-key' };
/** The local fake stands for api.mistral.ai: the deployment names its host for the key, as `-c providerKeyHosts` does. */
const keyHosts = { mode: 'refuse' as const, extra: { MISTRAL_API_KEY: ['127.0.0.1'] } };

describe('the mistral: provider', () => {
  it('posts chat/completions with the key as a Bearer token, the seed as random_seed and safe_prompt false', async () => {
    const server = await mistralServer();
    const provider = createNetworkProvider(`mistral:${server.url}#mistral-small-latest`, { env, keyHosts });

    const out = await provider?.generate(chatRequest({ sample: 2, params: { temperature: 0.2, topP: 1, maxTokens: 16, stop: [], seed: 40 } }));

    expect(out?.text).toBe('quattro');
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer m-key');
    const body = server.requests[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'mistral-small-latest', random_seed: 42, safe_prompt: false, max_tokens: 16, temperature: 0.2 });
    expect(body).not.toHaveProperty('seed');
  });

  it('would be refused by the API if the seed went out under OpenAI’s name (the fake enforces Mistral’s field list)', async () => {
    const server = await mistralServer();
    const provider = createNetworkProvider(`openai:${server.url}#mistral-small-latest`, { env: { OPENAI_API_KEY: 'x', MY_KEY: 'm-key' }, apiKeyEnv: 'MY_KEY' });

    const err = await provider?.generate(chatRequest({ params: { temperature: 0, topP: 1, maxTokens: 8, stop: [], seed: 1 } })).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).message).toMatch(/extra_forbidden.*"seed"/);
  });

  it('sends completion-style prompts in their chat form and scores likert by digit-parse (no log-probabilities)', async () => {
    const server = await mistralServer();
    const provider = createNetworkProvider(`mistral:${server.url}#mistral-small-latest`, { env, keyHosts });

    await provider?.generate(chatRequest({ prompt: { style: 'completion', messages: [], completion: 'fun f(): Int {\n' } }));
    const probe = await provider?.probeLikert?.();

    expect(server.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
    expect(probe?.supported).toEqual([]);
    expect(probe?.findings.join('\n')).toMatch(/no log-probabilities: mistral-small-latest returns none \(capabilities table/);
  });

  it('retries a 429 after its Retry-After and reads the answer', async () => {
    const server = await mistralServer({ faults: [{ kind: 'throttle', retryAfter: '2' }] });
    const retries = recordingRetries();
    const provider = createNetworkProvider(`mistral:${server.url}#mistral-small-latest`, { env, keyHosts, ...retries.options });

    const out = await provider?.generate(chatRequest());

    expect(out?.text).toBe('quattro');
    expect(out?.attempts).toBe(2);
    expect(retries.delays[0]).toBeGreaterThanOrEqual(2000);
  });

  it('fails fast on a wrong key with Mistral’s message', async () => {
    const server = await mistralServer();
    const provider = createNetworkProvider(`mistral:${server.url}#mistral-small-latest`, { env: { MISTRAL_API_KEY: 'wrong' }, keyHosts });

    const err = await provider?.generate(chatRequest()).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).retryable).toBe(false);
    expect((err as ProviderError).message).toMatch(/HTTP 401: Unauthorized/);
    expect(server.requests).toHaveLength(1);
  });

  it('retries an answer the server stopped with finish_reason "error" and never returns its partial text', async () => {
    const server = await mistralServer({ answer: () => 'quattro cinque', errorFinishes: 1 });
    const provider = createNetworkProvider(`mistral:${server.url}#mistral-small-latest`, { env, keyHosts, ...recordingRetries().options });

    const out = await provider?.generate(chatRequest());

    expect(out?.text).toBe('quattro cinque');
    expect(out?.attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  it('fails the call, never records it as the model\'s answer, when every attempt ends in finish_reason "error"', async () => {
    const server = await mistralServer({ answer: () => 'quattro cinque', errorFinishes: 10 });
    const provider = createNetworkProvider(`mistral:${server.url}#mistral-small-latest`, { env, keyHosts, maxRetries: 2, ...recordingRetries().options });

    const err = await provider?.generate(chatRequest()).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).message).toMatch(/finish_reason "error"/);
    expect(server.requests).toHaveLength(3);
  });

  it('binds MISTRAL_API_KEY to api.mistral.ai: a deployment refuses any other host before a call', async () => {
    const server = await mistralServer();

    expect(() => createNetworkProvider(`mistral:${server.url}#mistral-small-latest`, { env, keyHosts: { mode: 'refuse' } })).toThrow(
      /MISTRAL_API_KEY is not sent to 127\.0\.0\.1.*api\.mistral\.ai/,
    );
    expect(server.requests).toHaveLength(0);
    // The default base URL is the key's own host.
    expect(() => createNetworkProvider('mistral:mistral-small-latest', { env, keyHosts: { mode: 'refuse' } })).not.toThrow();
  });

  it('on this machine sends the key to another host only with a warning', async () => {
    const server = await mistralServer();
    const warnings: string[] = [];
    const provider = createNetworkProvider(`mistral:${server.url}#mistral-small-latest`, { env, warn: (m) => warnings.push(m) });

    await provider?.generate(chatRequest());

    expect(warnings.join('\n')).toMatch(/sending MISTRAL_API_KEY to 127\.0\.0\.1, which is not its provider's API host \(api\.mistral\.ai\)/);
  });

  it("reads a reasoning model's chunked answer (a thinking chunk, then text) as the text alone", async () => {
    const server = await mistralServer({ model: 'magistral-small-latest' });
    const provider = createNetworkProvider(`mistral:${server.url}#magistral-small-latest`, { env, keyHosts });

    const out = await provider?.generate(chatRequest());

    expect(out?.text).toBe('quattro');
    expect(out?.attempts).toBe(1);
    expect(server.requests).toHaveLength(1);
  });

  it('names the variable when the key is missing', () => {
    expect(() => createNetworkProvider('mistral:mistral-small-latest', { env: {} })).toThrow(InputError);
    expect(() => createNetworkProvider('mistral:mistral-small-latest', { env: {} })).toThrow(/MISTRAL_API_KEY is not set/);
  });
});
