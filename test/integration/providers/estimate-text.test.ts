/**
 * Cost estimates see the text real calls send: the cost guard's projection and `--dry-run`
 * estimate prompt tokens from `promptText`, and the raw-text endpoints (TGI `inputs`, OpenAI
 * `/completions`) are sent `promptText` — checked here on the wire, through the real clients,
 * for the bundled suites' own prompts (ABRICOT's few-shot chat with a system text, Kotlin's
 * completion) and a chat prompt without a system text.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBenchmarkSpec } from '#core/benchmarks/spec.ts';
import type { Prompt, Provider } from '#core/models/provider.ts';
import { promptText } from '#core/models/prompt-text.ts';
import { createNetworkProvider, estimateTokens } from '#providers/index.ts';
import { packageRoot } from '#app/local/home.ts';
import { estimatePromptTokens, projectionOf } from '#app/shared/cost-projection.ts';
import { loadSource } from '#app/shared/load-benchmark.ts';
import { dryRun } from '#app/shared/dry-run.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import { parseAssumedPrice } from '#providers/index.ts';
import { startOpenAiServer, startSageMakerServer, type FakeServer } from '../../fakes/wire-servers/index.ts';
import { chatRequest, useProviderSuite } from './harness.ts';

const cleanups = useProviderSuite();

async function firstPrompt(suite: string): Promise<Prompt> {
  const [source] = parseBenchmarkSpec(suite);
  if (!source) throw new Error(`no source for ${suite}`);
  const loaded = await loadSource(source, { packageRoot: packageRoot(), cacheDir: mkdtempSync(join(tmpdir(), 'polyeval-estimate-')) });
  const task = loaded.tasks[0];
  if (!task) throw new Error(`${suite} has no task`);
  return loaded.benchmark.buildPrompt(task, { pool: loaded.tasks });
}

function track<T extends FakeServer>(server: T): T {
  cleanups.push(() => server.close());
  return server;
}

function provider(spec: string, endpointUrl?: string): Provider {
  const p = createNetworkProvider(spec, endpointUrl ? { endpointUrl } : {});
  if (!p) throw new Error(`no provider for ${spec}`);
  cleanups.push(async () => p.close?.());
  return p;
}

const NO_SYSTEM: Prompt = { style: 'chat', messages: [{ role: 'user', content: 'Quanto è concreta la parola "tavolo"?' }] };

describe('the text a cost estimate is made from', () => {
  it.each([
    ['ABRICOT few-shot chat', () => firstPrompt('sample/abricot')],
    ['a chat prompt without a system text', () => Promise.resolve(NO_SYSTEM)],
  ])('is the text TGI is sent (%s)', async (_name, build) => {
    const prompt = await build();
    const server = track(await startSageMakerServer({ answer: () => '4' }));

    await provider('sagemaker:llm-tgi#tgi', server.url).generate(chatRequest({ prompt }));

    const sent = (server.requests[0]?.body as { inputs: string }).inputs;
    expect(sent).toBe(promptText(prompt));
    expect(estimatePromptTokens(prompt)).toBe(estimateTokens(sent));
  });

  it('is the text OpenAI /completions is sent (Kotlin completion)', async () => {
    const prompt = await firstPrompt('sample/kotlin-humaneval');
    expect(prompt.completion).toBeDefined();
    const server = track(await startOpenAiServer({ answer: () => '    return 0\n}' }));

    await provider(`openai:${server.url}#fake-model`).generate(chatRequest({ prompt }));

    expect(server.requests[0]?.path).toBe('/v1/completions');
    const sent = (server.requests[0]?.body as { prompt: string }).prompt;
    expect(sent).toBe(promptText(prompt));
    expect(estimatePromptTokens(prompt)).toBe(estimateTokens(sent));
  });

  it('prices the projection the cost guard reserves from the sent text at max_tokens', async () => {
    const prompt = await firstPrompt('sample/abricot');
    const server = track(await startSageMakerServer({ answer: () => '4' }));
    await provider('sagemaker:llm-tgi#tgi', server.url).generate(chatRequest({ prompt }));
    const sent = (server.requests[0]?.body as { inputs: string }).inputs;
    const perToken = (usage: { promptTokens: number; completionTokens: number }): number => usage.promptTokens * 1e-6 + usage.completionTokens * 2e-6;

    expect(projectionOf(perToken)(prompt, 64, 3)).toBeCloseTo(perToken({ promptTokens: estimateTokens(sent) * 3, completionTokens: 64 }), 12);
  });
});

describe('--dry-run', () => {
  const home = { cacheDir: mkdtempSync(join(tmpdir(), 'polyeval-dry-')) };
  const spec = (model: string) => parseRunSpec({ benchmark: 'sample/abricot', model, likertMode: 'digit-parse', maxTokens: 8, limit: 3 });

  it('counts each call of a model that cannot turn its thinking off at the raised limit the run reserves (o3-mini: +25,000)', async () => {
    const [plan] = await dryRun(spec('openai:http://127.0.0.1:1/v1#o3-mini'), {
      home,
      packageRoot: packageRoot(),
      assumePrice: parseAssumedPrice('1,1'),
      providerOptions: { env: {} },
    });

    expect(plan?.items).toBe(3);
    expect(plan?.completion_tokens).toBe(3 * (8 + 25_000));
  });

  it("prices the run at the table's price in force today (gemini-3.8-flash: its introductory price ended 2026-12-31)", async () => {
    const on = (day: string) =>
      dryRun(spec('gemini:gemini-3.8-flash'), {
        home,
        packageRoot: packageRoot(),
        providerOptions: { env: { GEMINI_API_KEY: 'k' } },
        now: () => new Date(`${day}T12:00:00Z`),
      });

    const [before] = await on('2026-12-31');
    const [after] = await on('2027-01-02');

    expect(before?.cost_usd).toBeGreaterThan(0);
    expect(after?.cost_usd).toBeCloseTo(2 * (before?.cost_usd ?? NaN), 12);
  });
});
