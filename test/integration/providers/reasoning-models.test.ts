/**
 * Reasoning models through `openai:`, `azure:` and the OpenAI-compatible servers that serve
 * thinking models: each gets the least thinking it accepts (as data in the capabilities
 * table), a budget raised by the thinking it cannot turn off, a refusal before any call when
 * that cannot fit, and an answer left empty by thinking is an error with that reason — never
 * an empty answer scored as wrong. Against the fake OpenAI API (openai-chat flavour: the API
 * reference's per-model reasoning_effort values and its unsupported_parameter 400s) and the
 * fake vLLM serving Qwen3 (chat_template_kwargs, its reasoning_effort Literal).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InputError, ProviderError } from '#core/errors.ts';
import { createNetworkProvider, shippedCapabilityTable, capabilitiesOf, adaptParams } from '#providers/index.ts';
import { startOpenAiServer, startAzureOpenAiServer, type OpenAiServerOptions } from '../../fakes/wire-servers/index.ts';
import { chatRequest } from './harness.ts';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function openaiApi(options: OpenAiServerOptions = {}) {
  // Reasoning spent per effort: "medium" (the API's default before gpt-5.1) eats a 4-token limit.
  const server = await startOpenAiServer({ flavour: 'openai-chat', answer: () => '4', reasoning: { none: 0, minimal: 8, low: 200, medium: 3000 }, ...options });
  servers.push(server);
  return server;
}

const ABRICOT = { temperature: 0, topP: 1, maxTokens: 4, stop: ['\n'] };

describe('reasoning models', () => {
  it.each([
    ['o3-mini', 'low', 4 + 25_000],
    ['o4-mini', 'low', 4 + 25_000],
    ['gpt-5-mini', 'minimal', 4 + 1024],
    ['gpt-5.1', 'none', 4],
    ['gpt-5.2', 'none', 4],
  ])('sends %s its lowest reasoning_effort (%s) with max_completion_tokens %d and no sampling fields; the answer comes back', async (model, effort, limit) => {
    const server = await openaiApi();
    const provider = createNetworkProvider(`openai:${server.url}#${model}`, {});

    const out = await provider?.generate(chatRequest({ params: ABRICOT }));

    expect(out?.text).toBe('4');
    const body = server.requests[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({ reasoning_effort: effort, max_completion_tokens: limit });
    for (const field of ['max_tokens', 'temperature', 'top_p', 'stop']) expect(body).not.toHaveProperty(field);
  });

  it('says in the manifest warnings that the limit was raised by the thinking the model cannot turn off', () => {
    const provider = createNetworkProvider('openai:http://127.0.0.1:1/v1#o3-mini', {});

    const warnings = provider?.adaptParams?.(ABRICOT, 'chat').warnings.join('\n');

    expect(warnings).toMatch(/max tokens 4 raised to 25004: o3-mini cannot turn its thinking off \(reasoning_effort "low" is its lowest\)/);
  });

  it('records an answer left empty by reasoning as an error naming the reasoning tokens, billed, not retried', async () => {
    const server = await openaiApi({ reasoning: { low: 30_000 } });
    const provider = createNetworkProvider(`openai:${server.url}#o3`, {});

    const err = await provider?.generate(chatRequest({ params: ABRICOT })).then(
      () => undefined,
      (e: unknown) => e as ProviderError,
    );

    expect(err?.message).toMatch(/^empty answer: the model spent 25004 reasoning tokens thinking and returned no text \(finish_reason "length"\)/);
    expect(err?.retryable).toBe(false);
    expect(err?.billed?.completionTokens).toBe(25_004);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses before any call, naming the model and --max-tokens, when the limit and the thinking exceed the model’s output limit', () => {
    const caps = capabilitiesOf(shippedCapabilityTable(), 'openai', 'o3');

    expect(() => adaptParams(caps, { ...ABRICOT, maxTokens: 90_000 }, 'o3')).toThrow(InputError);
    expect(() => adaptParams(caps, { ...ABRICOT, maxTokens: 90_000 }, 'o3')).toThrow(
      /o3: --max-tokens 90000 plus the 25000 thinking tokens it cannot turn off exceeds its output limit of 100000 tokens; lower --max-tokens to at most 75000/,
    );
  });

  it('never asks a reasoning model for log-probabilities (the table says none): the capability check makes no call', async () => {
    const server = await openaiApi();
    const provider = createNetworkProvider(`openai:${server.url}#o3-mini`, {});

    const probe = await provider?.probeLikert?.();

    expect(probe?.supported).toEqual([]);
    expect(probe?.findings.join('\n')).toMatch(/no log-probabilities: o3-mini returns none \(capabilities table: logprobs false\)/);
    expect(server.requests).toHaveLength(0);
  });

  it('gives an Azure reasoning deployment the same body as OpenAI’s API', async () => {
    const server = await startAzureOpenAiServer({ apiKey: 'k', deployments: { 'o4-mini': 'o4-mini' }, answer: () => '4' });
    servers.push(server);
    const provider = createNetworkProvider(`azure:${server.url}#o4-mini`, { env: { AZURE_OPENAI_API_KEY: 'k' } });

    await provider?.generate(chatRequest({ params: ABRICOT }));

    const body = server.requests[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({ reasoning_effort: 'low', max_completion_tokens: 25_004 });
    expect(body).not.toHaveProperty('temperature');
  });
});

describe('thinking models behind an OpenAI-compatible server (openai:)', () => {
  it('turns Qwen3’s thinking off on vLLM with chat_template_kwargs, learning from the first 400 that vLLM refuses reasoning_effort "none"', async () => {
    const server = await startOpenAiServer({ flavour: 'vllm', thinks: 500, answer: () => '4' });
    servers.push(server);
    const provider = createNetworkProvider(`openai:${server.url}#Qwen/Qwen3-8B`, {});

    const first = await provider?.generate(chatRequest({ params: ABRICOT }));
    const second = await provider?.generate(chatRequest({ params: ABRICOT }));

    expect([first?.text, second?.text]).toEqual(['4', '4']);
    const bodies = server.requests.map((r) => r.body as Record<string, unknown>);
    // One refusal per run: the first call is sent again without the field, the next never has it.
    expect(bodies.map((b) => b.reasoning_effort)).toEqual(['none', undefined, undefined]);
    expect(bodies.every((b) => JSON.stringify(b.chat_template_kwargs) === '{"enable_thinking":false}')).toBe(true);
  });
});
