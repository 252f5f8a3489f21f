/**
 * `ollama:` against the fake Ollama server (Llama-3 tokenizer, ollama@fb30760 behaviours):
 * the server from the spec or OLLAMA_HOST, the capability check's choice and reasons,
 * next-token scoring from chat top_logprobs, and 503 "server busy" retried with back-off.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError } from '#core/errors.ts';
import { createNetworkProvider } from '#providers/index.ts';
import { favourDigit, startOllamaServer, type OllamaServer, type OllamaServerOptions } from '../../fakes/wire-servers/index.ts';
import { chatRequest, recordingRetries } from './harness.ts';

const servers: OllamaServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function ollama(options: OllamaServerOptions = {}): Promise<OllamaServer> {
  const server = await startOllamaServer({ answer: () => 'quattro', ...options });
  servers.push(server);
  return server;
}

const likert = {
  taskId: 't',
  prompt: { style: 'chat' as const, messages: [{ role: 'user' as const, content: 'Da 1 a 5? Risposta:' }] },
  choices: ['1', '2', '3', '4', '5'],
};

describe('the ollama: provider', () => {
  it('reaches the server OLLAMA_HOST names, as host:port without a scheme, on /v1/chat/completions with no key', async () => {
    const server = await ollama();
    const host = server.url.replace('http://', '');
    const provider = createNetworkProvider('ollama:llama3.2:3b', { env: { OLLAMA_HOST: host } });

    const out = await provider?.generate(chatRequest());

    expect(out?.text).toBe('quattro');
    expect(server.requests[0]).toMatchObject({ path: '/v1/chat/completions', body: { model: 'llama3.2:3b' } });
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    // Llama 3 template + BOS counted by the server, not estimated: "quattro" is 2 Llama-3 tokens.
    expect(out?.usage.completionTokens).toBe(2);
  });

  it('takes the server from ollama:<base-url>#<model>, also pasted with /v1', async () => {
    const server = await ollama();
    for (const spec of [`ollama:${server.url}#llama3.2:3b`, `ollama:${server.url}/v1/#llama3.2:3b`]) {
      const provider = createNetworkProvider(spec, { env: { OLLAMA_HOST: 'http://127.0.0.1:1' } });
      expect((await provider?.generate(chatRequest()))?.text).toBe('quattro');
    }
    // (The provider also reads GET /api/version once, for its prompt-token counting.)
    expect(server.requests.map((r) => r.path).filter((p) => p.startsWith('/v1/'))).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
  });

  it('sends completion-style prompts in chat form: /v1/completions templates them as a user turn (no raw mode)', async () => {
    // An instruct model answering the templated turn chat-style, fenced, as it would on either route.
    const server = await ollama({ answer: () => '```kotlin\nfun f(): Int {\n  return 4\n}\n```\n' });
    const provider = createNetworkProvider(`ollama:${server.url}#llama3.2:3b`, {});

    const out = await provider?.generate(
      chatRequest({
        prompt: { style: 'completion', messages: [], completion: 'fun f(): Int {\n' },
        params: { temperature: 0, topP: 1, maxTokens: 64, stop: ['\n}'] },
      }),
    );

    expect(server.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/api/version']);
    const body = server.requests[0]?.body as { messages: { content: string }[] };
    expect(body.messages.map((m) => m.content).join('\n')).toContain('fun f(): Int {');
    expect(out?.text).toContain('return 4');
  });

  it('learns from the first 400 of Ollama v0.11.5–v0.12.3 (think value "none" is not supported) and leaves reasoning_effort out from then on', async () => {
    const server = await ollama({ version: '0.12.3' });
    const provider = createNetworkProvider(`ollama:${server.url}#llama3.2:3b`, {});

    const first = await provider?.generate(chatRequest());
    const second = await provider?.generate(chatRequest());

    expect([first?.text, second?.text]).toEqual(['quattro', 'quattro']);
    // One refused call per run: the first is sent again without the field, every later one never has it.
    const chats = server.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(chats.map((r) => (r.body as Record<string, unknown>).reasoning_effort)).toEqual(['none', undefined, undefined]);
    expect(first?.attempts).toBe(1);
  });

  it('counts a prompt Ollama v0.30.0 under-counts on cache reuse (prompt_n without cache_n) as it counted it the first time', async () => {
    const server = await ollama({ version: '0.30.0' });
    const provider = createNetworkProvider(`ollama:${server.url}#llama3.2:3b`, {});

    const first = await provider?.generate(chatRequest({ sample: 0 }));
    const again = await provider?.generate(chatRequest({ sample: 1 }));
    const other = await provider?.generate(
      chatRequest({ prompt: { style: 'chat', messages: [{ role: 'user', content: 'Quanto fa due più due? Rispondi in italiano, per favore.' }] } }),
    );

    const reported = server.requests.filter((r) => r.path === '/v1/chat/completions').length;
    expect(reported).toBe(3);
    // The server said 1 for the second call (everything but the last token came from its cache).
    expect(again?.usage.promptTokens).toBe(first?.usage.promptTokens);
    expect(first?.usage.promptTokens).toBeGreaterThan(20);
    // A new prompt sharing the cached prefix is counted at least at the chars/4 estimate, not at the few tokens evaluated.
    expect(other?.usage.promptTokens).toBeGreaterThanOrEqual(Math.ceil('Quanto fa due più due? Rispondi in italiano, per favore.'.length / 4));
  });

  it('turns a thinking model’s thinking off (reasoning_effort "none"): the answer fits a small max_tokens', async () => {
    const server = await ollama({ thinking: 'Okay, the user asks a sum; two plus two is four, so the answer is quattro.' });
    const provider = createNetworkProvider(`ollama:${server.url}#llama3.2:3b`, {});

    const out = await provider?.generate(chatRequest({ params: { temperature: 0, topP: 1, maxTokens: 4, stop: [] } }));

    expect(server.requests[0]?.body).toMatchObject({ reasoning_effort: 'none' });
    expect(out?.text).toBe('quattro');
  });

  it('scores the answer’s first token, not a thinking token, on a thinking model', async () => {
    // At a thinking position the model's alternatives are words ("Il"); at the answer's, the digit 4.
    const server = await ollama({
      thinking: 'Il valore',
      answer: () => '4',
      logprob: (context, token) => (context.endsWith('\n\n') ? (token === '4' ? -0.1 : -4) : token === 'Il' ? -0.1 : token === '1' ? -1 : -4),
    });
    const provider = createNetworkProvider(`ollama:${server.url}#llama3.2:3b`, {});

    const scores = await provider?.scoreChoices?.({ ...likert, scoring: { mode: 'next-token', method: 'chat-top-logprobs', reason: 'test', topLogprobs: 20 } });

    const best = scores?.logprobs.indexOf(Math.max(...(scores?.logprobs ?? [])));
    expect(best).toBe(3);
  });

  it('picks next-token mode from chat top_logprobs (20), recording why likelihood is not offered, without an echo call', async () => {
    const server = await ollama();
    const provider = createNetworkProvider(`ollama:${server.url}#llama3.2:3b`, {});

    const probe = await provider?.probeLikert?.();

    expect(probe?.supported).toEqual([{ mode: 'next-token', method: 'chat-top-logprobs', topLogprobs: 20 }]);
    expect(probe?.findings.join('\n')).toMatch(/no prompt log-probabilities: Ollama's \/v1\/completions ignores `echo`.*fb30760/);
    expect(server.requests.every((r) => r.path === '/v1/chat/completions')).toBe(true);
    expect(server.requests[0]?.body).toMatchObject({ logprobs: true, top_logprobs: 20, max_tokens: 3 });
  });

  it('scores the choices from the first token’s top_logprobs, as the Llama-3 tokens are spelled', async () => {
    const server = await ollama({ logprob: favourDigit(() => '4') });
    const provider = createNetworkProvider(`ollama:${server.url}#llama3.2:3b`, {});

    const scores = await provider?.scoreChoices?.({ ...likert, scoring: { mode: 'next-token', method: 'chat-top-logprobs', reason: 'test', topLogprobs: 20 } });

    const best = scores?.logprobs.indexOf(Math.max(...(scores?.logprobs ?? [])));
    expect(best).toBe(3);
  });

  it('falls back to digit-parse, saying why, on a server that returns no log-probabilities', async () => {
    const server = await ollama({ logprobs: false });
    const provider = createNetworkProvider(`ollama:${server.url}#llama3.2:3b`, {});

    const probe = await provider?.probeLikert?.();

    expect(probe?.supported).toEqual([]);
    expect(probe?.findings.join('\n')).toMatch(/no next-token log-probabilities: the chat answer had no top_logprobs/);
  });

  it('retries 503 "server busy" (OLLAMA_MAX_QUEUE full while the model loads) with back-off, as throttling', async () => {
    const server = await ollama({ loadMs: 300, maxQueue: 1 });
    const retries = recordingRetries();
    const provider = createNetworkProvider(`ollama:${server.url}#llama3.2:3b`, {
      ...retries.options,
      concurrency: 4,
      sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 50))),
    });

    const outs = await Promise.all([0, 1, 2, 3].map(() => provider?.generate(chatRequest())));

    expect(outs.map((o) => o?.text)).toEqual(['quattro', 'quattro', 'quattro', 'quattro']);
    expect(server.busy()).toBeGreaterThanOrEqual(1);
    expect(Math.max(...outs.map((o) => o?.attempts ?? 0))).toBeGreaterThan(1);
  });

  it('names the server it cannot reach (nothing listening at OLLAMA_HOST) instead of fetch’s bare "fetch failed"', async () => {
    const server = await ollama();
    const host = server.url.replace('http://', '');
    await server.close();
    servers.splice(0);
    const provider = createNetworkProvider('ollama:llama3.2:3b', { env: { OLLAMA_HOST: host }, ...recordingRetries().options, maxRetries: 1 });

    const err = await provider?.generate(chatRequest()).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect((err as Error).message).toMatch(new RegExp(`cannot reach http://${host.replace('.', '\\.')}: ECONNREFUSED`));
    expect((err as ProviderError).retryable).toBe(true);
  });

  it('fails fast on an unpulled model with Ollama’s message', async () => {
    const server = await ollama();
    const provider = createNetworkProvider(`ollama:${server.url}#mistral`, { maxRetries: 3 });

    const err = await provider?.generate(chatRequest()).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(err).toBeInstanceOf(ProviderError);
    expect((err as Error).message).toMatch(/404: model 'mistral' not found/);
    expect(server.requests).toHaveLength(1);
  });
});
