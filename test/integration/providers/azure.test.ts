/**
 * `azure:` against a fake Azure OpenAI resource: the URL of each route, the `api-key` header,
 * and Azure's refusals failing fast with Azure's own message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError } from '#core/errors.ts';
import { createNetworkProvider } from '#providers/index.ts';
import { startAzureOpenAiServer, type AzureOpenAiServer } from '../../fakes/wire-servers/index.ts';
import { chatRequest } from './harness.ts';

const servers: AzureOpenAiServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function resource(): Promise<AzureOpenAiServer> {
  const server = await startAzureOpenAiServer({ apiKey: 'az-key', deployments: { chat: 'gpt-4o-mini' }, answer: () => 'quattro' });
  servers.push(server);
  return server;
}

const env = { AZURE_OPENAI_API_KEY: 'az-key' };

describe('the azure: provider', () => {
  it('calls the v1 route with the deployment as the model and the key in api-key', async () => {
    const server = await resource();
    const provider = createNetworkProvider(`azure:${server.url}/#chat`, { env });

    const out = await provider?.generate(chatRequest());

    expect(out?.text).toBe('quattro');
    expect(server.requests[0]).toMatchObject({ path: '/openai/v1/chat/completions', body: { model: 'chat' } });
    expect(server.requests[0]?.headers['api-key']).toBe('az-key');
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('calls the deployment route with the api-version given after @', async () => {
    const server = await resource();
    const provider = createNetworkProvider(`azure:${server.url}#chat@2024-10-21`, { env });

    expect((await provider?.generate(chatRequest()))?.text).toBe('quattro');
    expect(server.requests[0]?.path).toBe('/openai/deployments/chat/chat/completions?api-version=2024-10-21');
  });

  it('reads the key from the variable --api-key-env names', async () => {
    const server = await resource();
    const provider = createNetworkProvider(`azure:${server.url}#chat`, { env: { MY_AZURE: 'az-key' }, apiKeyEnv: 'MY_AZURE' });
    expect((await provider?.generate(chatRequest()))?.text).toBe('quattro');
  });

  it.each([
    ['a wrong key', 'azure:URL#chat', { AZURE_OPENAI_API_KEY: 'wrong' }, /401: Access denied due to invalid subscription key/],
    ['an unknown deployment', 'azure:URL#nope', env, /404: The API deployment for this resource does not exist/],
  ])('fails fast on %s with Azure’s message', async (_name, spec, keyEnv, message) => {
    const server = await resource();
    const provider = createNetworkProvider(spec.replace('URL', server.url), { env: keyEnv, maxRetries: 3 });

    const err = await provider?.generate(chatRequest()).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).retryable).toBe(false);
    expect((err as Error).message).toMatch(message);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    ['azure:http://127.0.0.1:1', /missing "#<deployment>"/],
    ['azure:http://127.0.0.1:1#', /empty deployment name/],
    ['azure:http://127.0.0.1:1#chat@yesterday', /api-version after "@"/],
    ['azure:not a url#chat', /is not a URL/],
  ])('refuses the malformed spec %s naming what is wrong', (spec, reason) => {
    expect(() => createNetworkProvider(spec, { env })).toThrow(reason);
  });

  it('refuses to start without a key, naming the variable', () => {
    expect(() => createNetworkProvider('azure:http://127.0.0.1:1#chat', { env: {} })).toThrow(/AZURE_OPENAI_API_KEY is not set/);
  });
});

describe('azure: content filtering and pasted URLs', () => {
  async function filtering(): Promise<AzureOpenAiServer> {
    const server = await startAzureOpenAiServer({
      apiKey: 'az-key',
      deployments: { chat: 'gpt-4o-mini' },
      answer: (prompt) => (prompt.includes('storia') ? 'una storia violenta' : 'quattro'),
      filter: { prompt: /vietato/, completion: /violenta/ },
    });
    servers.push(server);
    return server;
  }
  const ask = (text: string) => chatRequest({ prompt: { style: 'chat', messages: [{ role: 'user', content: text }] } });

  it('records a prompt the content filter refuses (HTTP 400 content_filter) as the model’s refusal, on the first attempt', async () => {
    const server = await filtering();
    const provider = createNetworkProvider(`azure:${server.url}#chat`, { env, maxRetries: 3 });

    const out = await provider?.generate(ask('una domanda vietato'));

    expect(out?.text).toBe('');
    expect(out?.refusal).toMatch(/the prompt was filtered .*400.*content management policy/);
    expect(server.requests).toHaveLength(1);
  });

  it('records an answer filtered with finish_reason content_filter as a refusal', async () => {
    const server = await filtering();
    const provider = createNetworkProvider(`azure:${server.url}#chat`, { env, maxRetries: 3 });

    const out = await provider?.generate(ask('raccontami una storia'));

    expect(out?.refusal).toMatch(/the answer was filtered: no content \(finish_reason "content_filter"\)/);
    expect(out?.finishReason).toBe('content_filter');
    expect(server.requests).toHaveLength(1);
  });

  it.each([['/openai/v1/'], ['/openai/v1'], ['/openai']])('takes an endpoint pasted with %s without doubling the path', async (tail) => {
    const server = await filtering();
    const provider = createNetworkProvider(`azure:${server.url}${tail}#chat`, { env });
    const dated = createNetworkProvider(`azure:${server.url}${tail}#chat@2024-10-21`, { env });

    expect((await provider?.generate(chatRequest()))?.text).toBe('quattro');
    expect((await dated?.generate(chatRequest()))?.text).toBe('quattro');
    expect(server.requests.map((r) => r.path)).toEqual(['/openai/v1/chat/completions', '/openai/deployments/chat/chat/completions?api-version=2024-10-21']);
  });
});

describe('azure: a filtered ABRICOT item in the log-probability modes', () => {
  const choices = [' 1', ' 2', ' 3', ' 4', ' 5'];
  const item = (text: string) => ({
    taskId: 't1',
    prompt: { style: 'completion' as const, messages: [{ role: 'user' as const, content: text }], completion: text },
    choices,
  });
  const nextToken = { mode: 'next-token' as const, method: 'chat-top-logprobs', reason: 'test', topLogprobs: 5 };
  const likelihood = { mode: 'likelihood' as const, method: 'openai-echo', reason: 'test' };

  async function filtering(answer = 'quattro'): Promise<AzureOpenAiServer> {
    const server = await startAzureOpenAiServer({
      apiKey: 'az-key',
      deployments: { chat: 'gpt-4o-mini' },
      completionDeployments: { instruct: 'gpt-35-turbo-instruct' },
      answer: () => answer,
      filter: { prompt: /vietato/, completion: /violenta/ },
    });
    servers.push(server);
    return server;
  }

  it('records a prompt the filter refuses as a refusal in next-token mode, with no scores and one call', async () => {
    const server = await filtering();
    const provider = createNetworkProvider(`azure:${server.url}#chat`, { env, maxRetries: 3 });

    const out = await provider?.scoreChoices?.({ ...item('Valore? vietato'), scoring: nextToken });

    expect(out?.refusal).toMatch(/the prompt was filtered .*400.*content management policy/);
    expect(out?.logprobs).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('records a next token the output filter withholds (finish_reason content_filter) as a refusal, billed', async () => {
    const server = await filtering('violenta');
    const provider = createNetworkProvider(`azure:${server.url}#chat`, { env, maxRetries: 3 });

    const out = await provider?.scoreChoices?.({ ...item('Valore?'), scoring: nextToken });

    expect(out?.refusal).toMatch(/the answer was filtered \(finish_reason "content_filter"\)/);
    expect(out?.logprobs).toEqual([]);
    expect(out?.usage.promptTokens).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(1);
  });

  it('records a prompt the filter refuses as a refusal in likelihood (echo) mode, never retried with max_tokens 1', async () => {
    const server = await filtering();
    const provider = createNetworkProvider(`azure:${server.url}#instruct@2024-10-21`, { env, maxRetries: 3 });

    const out = await provider?.scoreChoices?.({ ...item('Valore? vietato'), scoring: likelihood });

    expect(out?.refusal).toMatch(/the prompt was filtered .*content management policy/);
    expect(out?.logprobs).toEqual([]);
    expect(server.requests.every((r) => r.body.max_tokens === 0)).toBe(true);
    expect(server.requests.length).toBeLessThanOrEqual(choices.length);
  });

  it('scores an unfiltered item of the completions deployment by echo', async () => {
    const server = await filtering();
    const provider = createNetworkProvider(`azure:${server.url}#instruct@2024-10-21`, { env });

    const out = await provider?.scoreChoices?.({ ...item('Valore?'), scoring: likelihood });

    expect(out?.refusal).toBeUndefined();
    expect(out?.logprobs).toHaveLength(5);
    expect(server.requests[0]?.path).toBe('/openai/deployments/instruct/completions?api-version=2024-10-21');
  });
});
