/**
 * Runs that meet quotas, prices and refusals as real servers serve them: a per-window
 * request quota answered with 429 + Retry-After at --concurrency 64, a --max-cost on a
 * model without a price, and a chat model that refuses (`content: null`).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openHome, packageRoot } from '#app/local/home.ts';
import { runLocal } from '#app/local/run.ts';
import { readItems } from '#core/report/aggregate.ts';
import { readManifest } from '#core/run/manifest-store.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import { estimateCost, parseAssumedPrice, shippedPriceTable } from '#providers/index.ts';
import { startAzureOpenAiServer, startBedrockServer, startOpenAiServer } from '../../fakes/wire-servers/index.ts';
import { useFakeAwsEnv } from './harness.ts';

const ROOT = packageRoot();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function home() {
  return openHome(mkdtempSync(join(tmpdir(), 'throttle-cost-')));
}

describe('a run against a quota', () => {
  it('finishes at --concurrency 64 against a 50-per-window quota with no SE and every call counted', async () => {
    cleanups.push(useFakeAwsEnv());
    // 50 requests per window, a "minute" scaled to one second; 429 with Retry-After and retry-after-ms past it.
    // Each answer takes 50 ms, so calls really overlap.
    const server = await startBedrockServer({ rateLimit: { requests: 50, windowMs: 1000 }, holdMs: 50, answer: () => '3' });
    cleanups.push(() => server.close());
    const h = home();
    const model = 'anthropic.claude-3-haiku-20240307-v1:0';

    const [result] = await runLocal(parseRunSpec({ benchmark: 'sample/abricot', model: `bedrock:${model}`, n: 3 }), {
      home: h,
      packageRoot: ROOT,
      providerOptions: { endpointUrl: server.url, concurrency: 64 },
      jobs: 2,
    });

    expect(result?.status).toBe('completed');
    const docs = await readItems(h.store, result?.run_id ?? '');
    expect(docs.length).toBe(156);
    expect(docs.filter((d) => d.record.verdict === 'SE')).toEqual([]);
    expect(server.throttled()).toBeGreaterThan(0);
    expect(server.maxInFlight()).toBeGreaterThan(1);
    expect(server.maxInFlight()).toBeLessThanOrEqual(64);
    // Every call the server saw is an attempt of some item; only the answered ones are billed.
    expect(docs.reduce((sum, d) => sum + d.generation.attempts, 0)).toBe(server.requests.length);
    const answered = server.requests.length - server.throttled();
    expect(answered).toBe(156);
    const promptTokens = docs.reduce((sum, d) => sum + (d.generation.usage?.promptTokens ?? 0), 0);
    const completionTokens = docs.reduce((sum, d) => sum + (d.generation.usage?.completionTokens ?? 0), 0);
    const expected = estimateCost(shippedPriceTable(), model, { promptTokens, completionTokens }).usd ?? NaN;
    expect((await h.ledger.getRun(result?.run_id ?? ''))?.costUsd).toBeCloseTo(expected, 9);
  });
});

describe('--max-cost', () => {
  it('refuses a model without a price before any call, naming --prices and --assume-price', async () => {
    const server = await startOpenAiServer({ flavour: 'vllm' });
    cleanups.push(() => server.close());
    const h = home();

    const err = await runLocal(parseRunSpec({ benchmark: 'sample/abricot', model: `openai:${server.url}#my-finetune`, maxCostUsd: 1 }), {
      home: h,
      packageRoot: ROOT,
      providerOptions: { env: {} },
    }).catch((e: unknown) => e);

    expect(err).toMatchObject({ name: 'InputError', message: expect.stringMatching(/no price.*--prices.*--assume-price/) });
    expect(server.requests).toHaveLength(0);
    expect(await h.ledger.listRuns()).toEqual([]);
  });

  it('bounds the spend of an unpriced model at the price given with --assume-price', async () => {
    const server = await startOpenAiServer({ flavour: 'openai-chat', answer: () => '3' });
    cleanups.push(() => server.close());
    const h = home();

    const [result] = await runLocal(
      parseRunSpec({ benchmark: 'sample/abricot', model: `openai:${server.url}#my-finetune`, maxCostUsd: 0.05, likertMode: 'digit-parse' }),
      {
        home: h,
        packageRoot: ROOT,
        providerOptions: { env: {}, concurrency: 4 },
        assumePrice: parseAssumedPrice('10,10'),
      },
    );

    expect(result?.status).toBe('stopped');
    const run = await h.ledger.getRun(result?.run_id ?? '');
    expect(run?.costUsd).toBeGreaterThan(0);
    expect(run?.costUsd).toBeLessThanOrEqual(0.05);
    expect(server.requests.length).toBeGreaterThan(0);
  });
});

describe('--max-cost on a model that cannot turn its thinking off', () => {
  it('reserves each call at the raised limit (--max-tokens plus the thinking budget), so a cap below one call stops before any call', async () => {
    // o3-mini: max_completion_tokens is --max-tokens + 25,000 (model-capabilities.json); at
    // 10 USD per million tokens one call may bill 0.25 USD, over a 0.05 cap. Reserved at
    // --max-tokens alone (a few tokens) the whole run would go through under that cap.
    const server = await startOpenAiServer({ flavour: 'openai-chat', answer: () => '3' });
    cleanups.push(() => server.close());
    const h = home();

    const [result] = await runLocal(
      parseRunSpec({ benchmark: 'sample/abricot', model: `openai:${server.url}#o3-mini`, maxCostUsd: 0.05, likertMode: 'digit-parse' }),
      { home: h, packageRoot: ROOT, providerOptions: { env: {} }, assumePrice: parseAssumedPrice('10,10') },
    );

    expect(result?.status).toBe('stopped');
    expect(server.requests).toHaveLength(0);
    expect((await h.ledger.getRun(result?.run_id ?? ''))?.costUsd ?? 0).toBe(0);
  });
});

describe('a refusal', () => {
  it('is recorded on first sight with its reason, not retried, and its tokens are counted', async () => {
    const server = await startOpenAiServer({ flavour: 'openai-chat', refuse: () => true });
    cleanups.push(() => server.close());
    const h = home();

    const [result] = await runLocal(parseRunSpec({ benchmark: 'sample/abricot', model: `openai:${server.url}#gpt-4o`, likertMode: 'digit-parse', limit: 3 }), {
      home: h,
      packageRoot: ROOT,
      providerOptions: { env: {} },
      assumePrice: parseAssumedPrice('1,1'),
    });

    const docs = await readItems(h.store, result?.run_id ?? '');
    expect(docs).toHaveLength(3);
    for (const d of docs) {
      expect(d.record.verdict).toBe('WA');
      expect(d.record.error).toMatch(/no content.*content_filter/);
      expect(d.record.prompt_tokens).toBeGreaterThan(0);
      expect(d.generation.attempts).toBe(1);
    }
    expect(server.requests).toHaveLength(3);
    expect((await h.ledger.getRun(result?.run_id ?? ''))?.costUsd).toBeGreaterThan(0);
  });
});

describe('a content filter in a likert run', () => {
  it('records the items Azure’s filter refuses as refusals in next-token mode, never SE', async () => {
    const server = await startAzureOpenAiServer({ apiKey: 'az-key', deployments: { chat: 'gpt-4o-mini' }, filter: { prompt: /lampada sul comodino/ } });
    cleanups.push(() => server.close());
    const h = home();

    const [result] = await runLocal(parseRunSpec({ benchmark: 'sample/abricot', model: `azure:${server.url}#chat`, limit: 6 }), {
      home: h,
      packageRoot: ROOT,
      providerOptions: { env: { AZURE_OPENAI_API_KEY: 'az-key' }, maxRetries: 3 },
      assumePrice: parseAssumedPrice('1,1'),
    });

    expect((await readManifest(h.store, result?.run_id ?? ''))?.likert_mode).toBe('next-token');
    const docs = await readItems(h.store, result?.run_id ?? '');
    const refused = docs.filter((d) => /the prompt was filtered/.test(d.record.error ?? ''));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThan(docs.length);
    expect(docs.filter((d) => d.record.verdict === 'SE')).toEqual([]);
    for (const d of refused) {
      expect(d.record.verdict).toBe('WA');
      expect(d.record.predicted).toBeNull();
      expect(d.generation.attempts).toBe(1);
    }
  });
});
