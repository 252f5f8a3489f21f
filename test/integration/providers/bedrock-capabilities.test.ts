/**
 * Bedrock requests adapted to what each model accepts, against a fake that validates as
 * Bedrock and Anthropic do: no whitespace-only stop sequence to Anthropic models (the
 * answer is cut at it afterwards), never temperature and top_p together to a Claude
 * 4.5-generation model, at most 4 stop sequences; and a completion-style prompt as one
 * user message.
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createNetworkProvider, loadCapabilityTable, type ProviderOptions } from '#providers/index.ts';
import type { Provider } from '#core/models/provider.ts';
import { startBedrockServer, type BedrockServer } from '../../fakes/wire-servers/index.ts';
import { chatRequest, useProviderSuite } from './harness.ts';

const cleanups = useProviderSuite();

async function serve(answer = '3\nPerché sì.'): Promise<BedrockServer> {
  const server = await startBedrockServer({ answer: () => answer });
  cleanups.push(() => server.close());
  return server;
}

function provider(spec: string, server: BedrockServer, extra: ProviderOptions = {}): Provider {
  const p = createNetworkProvider(spec, { endpointUrl: server.url, ...extra });
  if (!p) throw new Error('no provider');
  cleanups.push(async () => p.close?.());
  return p;
}

const config = (server: BedrockServer, i = 0) => (server.requests[i]?.body as { inferenceConfig: Record<string, unknown> }).inferenceConfig;

describe('bedrock: settings adapted to the model', () => {
  it('sends no whitespace-only stop sequence to an Anthropic model and cuts the answer at it instead', async () => {
    const server = await serve();
    const p = provider('bedrock:us.anthropic.claude-3-5-haiku-20241022-v1:0', server);

    const g = await p.generate(chatRequest({ params: { temperature: 0, topP: 1, maxTokens: 4, stop: ['\n', '###'] } }));

    expect(config(server).stopSequences).toEqual(['###']);
    expect(g.text).toBe('3');
    expect(server.requests).toHaveLength(1);
  });

  it('the same request without adaptation is what Bedrock rejects', async () => {
    const server = await serve();
    const p = provider('bedrock:anthropic.claude-3-haiku-20240307-v1:0', server, {
      capabilities: { rules: [] },
      maxRetries: 0,
    });

    const err = await p.generate(chatRequest({ params: { temperature: 0, topP: 1, maxTokens: 4, stop: ['\n'] } })).catch((e: unknown) => e);

    expect(err).toMatchObject({ retryable: false, status: 400, message: expect.stringContaining('must contain non-whitespace') });
  });

  it.each(['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'anthropic.claude-haiku-4-5-20251001-v1:0', 'global.anthropic.claude-opus-4-5-20251101-v1:0'])(
    'never sends temperature and top_p together to %s',
    async (id) => {
      const server = await serve('print(1)');
      const p = provider(`bedrock:${id}`, server);

      const g = await p.generate(chatRequest({ params: { temperature: 0.2, topP: 0.9, maxTokens: 64, stop: [] } }));

      expect(g.text).toBe('print(1)');
      expect(config(server)).toMatchObject({ temperature: 0.2 });
      expect(config(server)).not.toHaveProperty('topP');
    },
  );

  it('keeps top_p for models that take both', async () => {
    const server = await serve('x');
    const p = provider('bedrock:anthropic.claude-3-7-sonnet-20250219-v1:0', server);

    await p.generate(chatRequest({ params: { temperature: 0.2, topP: 0.9, maxTokens: 64, stop: [] } }));

    expect(config(server)).toMatchObject({ temperature: 0.2, topP: 0.9 });
  });

  it('says before any call what it will adapt', () => {
    const p = createNetworkProvider('bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0', {});

    const { warnings } = p?.adaptParams?.({ temperature: 0.2, topP: 0.9, maxTokens: 64, stop: ['\n', 'a', 'b', 'c', 'd', 'e'] }, 'chat') ?? { warnings: [] };

    expect(warnings).toEqual([expect.stringContaining('"\\n" not sent'), expect.stringContaining('top_p 0.9 not sent')]);
  });

  it("sends every stop sequence within Converse's 2500 (no longer cut at 4)", async () => {
    const server = await serve('alpha beta gamma');
    const p = provider('bedrock:meta.llama3-1-8b-instruct-v1:0', server);

    const g = await p.generate(chatRequest({ params: { temperature: 0, topP: 1, maxTokens: 64, stop: ['1', '2', '3', '4', 'gamma'] } }));

    expect(config(server).stopSequences).toEqual(['1', '2', '3', '4', 'gamma']);
    expect(g.text).toBe('alpha beta ');
  });

  it('sends Claude Opus 4.7 no temperature or top_p (it refuses them), with a warning (defect 5)', async () => {
    const server = await serve('4');
    const p = provider('bedrock:us.anthropic.claude-opus-4-7', server);

    const g = await p.generate(chatRequest({ params: { temperature: 0, topP: 1, maxTokens: 8, stop: [] } }));

    expect(g.text).toBe('4');
    expect(config(server)).not.toHaveProperty('temperature');
    expect(p.adaptParams?.({ temperature: 0, topP: 1, maxTokens: 8, stop: [] }, 'chat').warnings).toEqual([expect.stringContaining('temperature 0 not sent')]);
  });

  it('sends Claude Opus 4.1 temperature without top_p (defect 5)', async () => {
    const server = await serve('4');
    const p = provider('bedrock:anthropic.claude-opus-4-1-20250805-v1:0', server);
    await p.generate(chatRequest({ params: { temperature: 0.2, topP: 0.9, maxTokens: 8, stop: [] } }));
    expect(config(server)).toMatchObject({ temperature: 0.2 });
    expect(config(server)).not.toHaveProperty('topP');
  });

  it.each([
    ['amazon.titan-text-express-v1', undefined],
    ['openai.gpt-oss-120b-1:0', undefined],
    ['qwen.qwen3-32b-v1:0', undefined],
  ])('sends %s only the stop sequences it takes and cuts the answer at the rest (defect 6)', async (model) => {
    const server = await serve('3\nperché');
    const p = provider(`bedrock:${model}`, server);

    const g = await p.generate(chatRequest({ params: { temperature: 0, topP: 1, maxTokens: 8, stop: ['\n'] } }));

    expect(g.text).toBe('3');
    expect(config(server).stopSequences).toBeUndefined();
  });

  it('sends a completion-style prompt as one user message (Converse is chat-only)', async () => {
    const server = await serve('    return a + b\n}');
    const p = provider('bedrock:meta.llama3-1-8b-instruct-v1:0', server);

    await p.generate(chatRequest({ prompt: { style: 'completion', messages: [], completion: 'fun add(a: Int, b: Int): Int {\n' } }));

    expect((server.requests[0]?.body as { messages: unknown }).messages).toEqual([{ role: 'user', content: [{ text: 'fun add(a: Int, b: Int): Int {\n' }] }]);
  });

  it('takes extra rules from a --capabilities file, applied after the shipped ones', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'caps-')), 'caps.json');
    writeFileSync(file, JSON.stringify({ rules: [{ provider: 'bedrock', model: '^meta\\.', exclusive_sampling: true, source: 'our own finding' }] }));
    const server = await serve('x');
    const p = provider('bedrock:meta.llama3-1-8b-instruct-v1:0', server, { capabilities: await loadCapabilityTable(file) });

    await p.generate(chatRequest({ params: { temperature: 0.2, topP: 0.9, maxTokens: 8, stop: [] } }));

    expect(config(server)).not.toHaveProperty('topP');
  });

  it('names the file and field of a bad --capabilities file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'caps-')), 'caps.json');
    writeFileSync(file, JSON.stringify({ rules: [{ provider: 'bedrock', model: '(', source: 'x' }] }));

    await expect(loadCapabilityTable(file)).rejects.toMatchObject({ name: 'InputError', message: expect.stringContaining('rules.0.model') });
  });
});
