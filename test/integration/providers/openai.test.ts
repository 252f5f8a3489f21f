import { afterEach, describe, expect, it } from 'vitest';
import { createNetworkProvider, type ProviderOptions } from '#providers/index.ts';
import type { Prompt, Provider } from '#core/models/provider.ts';
import { favourDigit, startOpenAiServer, type OpenAiServer, type OpenAiServerOptions } from '../../fakes/wire-servers/index.ts';
import { chatRequest } from './harness.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setUp(serverOptions: OpenAiServerOptions = {}, options: ProviderOptions = {}): Promise<{ server: OpenAiServer; provider: Provider }> {
  const server = await startOpenAiServer(serverOptions);
  cleanups.push(() => server.close());
  const provider = createNetworkProvider(`openai:${server.url}#qwen-7b`, { env: {}, ...options });
  if (!provider) throw new Error('no provider');
  return { server, provider };
}

const ITALIAN: Prompt = {
  style: 'completion',
  messages: [{ role: 'user', content: 'unused' }],
  completion: 'Quanto è astratta la parola "libertà"? Risposta: ',
};
const DIGITS = ['1', '2', '3', '4', '5'];
/** A model that prefers "4" after any prompt about "libertà" and "2" otherwise. */
const favour = (context: string, token: string): number => {
  const preferred = context.includes('libertà') ? '4' : '2';
  return token === preferred ? -0.2 : DIGITS.includes(token) ? -3 : -1;
};

describe('openai provider', () => {
  it('sends a chat prompt to /chat/completions with the sampling parameters', async () => {
    const { server, provider } = await setUp();

    await provider.generate(chatRequest({ sample: 2, params: { temperature: 0.8, topP: 0.95, maxTokens: 50, stop: ['###'], seed: 10 } }));

    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
    expect(server.requests[0]?.body).toEqual({
      model: 'qwen-7b',
      messages: [
        { role: 'system', content: 'Sei un assistente preciso.' },
        { role: 'user', content: 'Quanto fa due più due?' },
      ],
      max_tokens: 50,
      temperature: 0.8,
      top_p: 0.95,
      stop: ['###'],
      seed: 12,
    });
  });

  it('sends a completion-style prompt verbatim to /completions', async () => {
    const { server, provider } = await setUp({ answer: (prompt) => (prompt.startsWith('fun ') ? '    return a + b\n}' : '') });
    const prompt: Prompt = { style: 'completion', messages: [], completion: 'fun add(a: Int, b: Int): Int {\n' };

    const g = await provider.generate(chatRequest({ prompt, params: { temperature: 0, topP: 1, maxTokens: 100, stop: ['\n}\n'] } }));

    expect(server.requests[0]?.path).toBe('/v1/completions');
    expect((server.requests[0]?.body as { prompt: string }).prompt).toBe('fun add(a: Int, b: Int): Int {\n');
    expect(g.text).toBe('    return a + b\n}');
    expect(g.usage.completionTokens).toBeGreaterThan(0);
  });

  it('sends the key from the variable named by apiKeyEnv as a bearer token', async () => {
    const { server, provider } = await setUp({ apiKey: 'sk-local' }, { apiKeyEnv: 'MY_KEY', env: { MY_KEY: 'sk-local' } });

    const g = await provider.generate(chatRequest());

    expect(g.text).toBe('ok');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-local');
  });

  it('fails fast on a wrong key with the server message', async () => {
    const { server, provider } = await setUp({ apiKey: 'sk-right' }, { env: { OPENAI_API_KEY: 'sk-wrong' } });

    await expect(provider.generate(chatRequest())).rejects.toMatchObject({ retryable: false, message: expect.stringContaining('Incorrect API key') });
    expect(server.requests).toHaveLength(1);
  });

  it('picks the choice the model favours from echoed prompt log-probabilities', async () => {
    const { server, provider } = await setUp({ logprob: favour });

    const scores = await provider.scoreChoices?.({ taskId: 'abstractness/7', prompt: ITALIAN, choices: DIGITS });

    expect(scores?.logprobs).toEqual([-3, -3, -3, -0.2, -3]);
    expect(server.requests.map((r) => (r.body as { echo?: boolean; max_tokens?: number }).max_tokens)).toEqual([0, 0, 0, 0, 0]);
    expect(scores?.usage.promptTokens).toBeGreaterThan(0);
  });

  it('falls back to max_tokens 1 for servers that refuse 0, and ignores the generated token', async () => {
    const { server, provider } = await setUp({ logprob: favour, rejectMaxTokensZero: true, answer: () => '5' }, { concurrency: 1 });
    const prompt: Prompt = { ...ITALIAN, completion: 'Quanto è astratta la parola "tavolo"? Risposta: ' };

    const scores = await provider.scoreChoices?.({ taskId: 'abstractness/8', prompt, choices: DIGITS });
    const again = await provider.scoreChoices?.({ taskId: 'abstractness/8', prompt, choices: ['1'] });

    expect(scores?.logprobs).toEqual([-3, -0.2, -3, -3, -3]);
    expect(again?.logprobs).toEqual([-3]);
    const maxTokens = server.requests.map((r) => (r.body as { max_tokens?: number }).max_tokens);
    expect(maxTokens).toEqual([0, 1, 1, 1, 1, 1, 1]);
  });

  it('scores from token lengths when the server reports no text offsets', async () => {
    const { provider } = await setUp({ logprob: favour, omitTextOffset: true });

    const scores = await provider.scoreChoices?.({ taskId: 'abstractness/9', prompt: ITALIAN, choices: ['4', '12'] });

    expect(scores?.logprobs).toEqual([-0.2, -6]);
  });

  it('follows a per-prompt favoured digit across prompts', async () => {
    const { provider } = await setUp({ logprob: favourDigit((ctx) => (ctx.includes('tavolo') ? '1' : '5')) });
    const concrete: Prompt = { ...ITALIAN, completion: 'Quanto è astratta la parola "tavolo"? Risposta: ' };

    const abstract = await provider.scoreChoices?.({ taskId: 'a/1', prompt: ITALIAN, choices: DIGITS });
    const table = await provider.scoreChoices?.({ taskId: 'a/2', prompt: concrete, choices: DIGITS });

    const best = (l: number[] | undefined): number => (l ?? []).indexOf(Math.max(...(l ?? [])));
    expect(best(abstract?.logprobs)).toBe(4);
    expect(best(table?.logprobs)).toBe(0);
  });

  it.each([
    ['openai:http://127.0.0.1:8000/v1', /missing "#<model>"/],
    ['openai:not a url#m', /not a URL/],
    ['openai:ftp://host/v1#m', /http/],
  ])('rejects the malformed spec %s naming it', (spec, reason) => {
    expect(() => createNetworkProvider(spec)).toThrow(reason);
    expect(() => createNetworkProvider(spec)).toThrow(spec);
  });
});

describe('openai provider on a chat-only server', () => {
  it('sends a completion-style prompt in its chat form after /completions answers 404, and never tries /completions again', async () => {
    const { server, provider } = await setUp({ flavour: 'openai-chat', answer: () => '```kotlin\nfun add(a: Int, b: Int) = a + b\n```' });
    const prompt: Prompt = {
      style: 'completion',
      completion: 'fun add(a: Int, b: Int): Int {\n',
      messages: [{ role: 'user', content: 'Complete the Kotlin function add.' }],
    };

    const first = await provider.generate(chatRequest({ prompt }));
    await provider.generate(chatRequest({ prompt }));

    expect(first.text).toContain('fun add');
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/completions', '/v1/chat/completions', '/v1/chat/completions']);
    expect((server.requests[1]?.body as { messages: unknown }).messages).toEqual([{ role: 'user', content: 'Complete the Kotlin function add.' }]);
  });

  it('sends a completion prompt without a chat form as one user message', async () => {
    const { server, provider } = await setUp({ flavour: 'openai-chat' });

    await provider.generate(chatRequest({ prompt: { style: 'completion', completion: 'Il mare è', messages: [] } }));

    expect((server.requests.at(-1)?.body as { messages: unknown }).messages).toEqual([{ role: 'user', content: 'Il mare è' }]);
  });
});
