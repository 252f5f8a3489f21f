/**
 * ABRICOT through every server flavour the fakes copy: the capability check picks the best
 * mode the server supports (likelihood, next-token, digit-parse), records it with its
 * reason in the manifest, and every item predicts exactly the digit the model prefers —
 * never a column of SE.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openHome, packageRoot } from '#app/local/home.ts';
import { requireManifest, runLocal } from '#app/local/run.ts';
import { readItems } from '#core/report/aggregate.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import type { ProviderOptions } from '#providers/index.ts';
import {
  favourDigit,
  startAzureOpenAiServer,
  startBedrockServer,
  startOpenAiServer,
  startSageMakerServer,
  type FakeServer,
  type LogprobFn,
  type OpenAiFlavour,
} from '../../fakes/wire-servers/index.ts';
import { useFakeAwsEnv } from './harness.ts';
import { sampleGoldDigit } from '../../support/abricot-sample.ts';

const ROOT = packageRoot();

const preferred = sampleGoldDigit;
const model: LogprobFn = favourDigit(preferred);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Case {
  name: string;
  start: () => Promise<Pick<FakeServer, 'url' | 'close'>>;
  spec: (server: Pick<FakeServer, 'url'>) => string;
  options?: (server: Pick<FakeServer, 'url'>) => ProviderOptions;
  mode: 'likelihood' | 'next-token' | 'digit-parse';
  method: string;
  /** What the manifest must say was adapted to the model. */
  warning?: RegExp;
}

const openai = (flavour: OpenAiFlavour, extra: { byteLevel?: boolean } = {}): Pick<Case, 'start' | 'spec'> => ({
  start: () => startOpenAiServer({ flavour, logprob: model, answer: (prompt) => preferred(prompt), ...extra }),
  spec: (s) => `openai:${s.url}#fake-model`,
});

const CASES: Case[] = [
  { name: 'vLLM (no BOS)', ...openai('vllm'), mode: 'likelihood', method: 'openai-echo' },
  { name: 'vLLM serving Llama 3 (BOS echoed, offsets shifted)', ...openai('vllm-llama'), mode: 'likelihood', method: 'openai-echo' },
  { name: 'vLLM serving Llama 3, byte-level token strings', ...openai('vllm-llama', { byteLevel: true }), mode: 'likelihood', method: 'openai-echo' },
  { name: 'llama.cpp server', ...openai('llama.cpp'), mode: 'next-token', method: 'chat-top-logprobs' },
  { name: 'TGI Messages API', ...openai('tgi'), mode: 'next-token', method: 'chat-top-logprobs' },
  { name: 'OpenAI chat model', ...openai('openai-chat'), mode: 'next-token', method: 'chat-top-logprobs' },
  ...(['', '@2024-10-21'] as const).map((version): Case => ({
    name: `Azure OpenAI ${version === '' ? 'v1 route' : `deployment route, api-version ${version.slice(1)}`}`,
    start: () => startAzureOpenAiServer({ apiKey: 'az-key', deployments: { abricot: 'gpt-4o-mini' }, logprob: model, answer: (prompt) => preferred(prompt) }),
    spec: (s) => `azure:${s.url}#abricot${version}`,
    options: () => ({ env: { AZURE_OPENAI_API_KEY: 'az-key' } }),
    mode: 'next-token',
    method: 'chat-top-logprobs',
  })),
  {
    name: 'SageMaker TGI',
    start: () => startSageMakerServer({ logprob: model }),
    spec: () => 'sagemaker:abricot-tgi#tgi',
    options: (s) => ({ endpointUrl: s.url }),
    mode: 'likelihood',
    method: 'tgi-prefill',
  },
  {
    name: 'SageMaker vLLM',
    start: () => startSageMakerServer({ logprob: model }),
    spec: () => 'sagemaker:abricot-vllm#openai',
    options: (s) => ({ endpointUrl: s.url }),
    mode: 'likelihood',
    method: 'vllm-prompt-logprobs',
  },
  {
    name: 'SageMaker chat container without prompt_logprobs',
    start: () => startSageMakerServer({ logprob: model, noPromptLogprobs: true }),
    spec: () => 'sagemaker:abricot-lmi#openai',
    options: (s) => ({ endpointUrl: s.url }),
    mode: 'next-token',
    method: 'chat-top-logprobs',
  },
  {
    name: 'Bedrock, Anthropic model (answers the digit, then explains on the next line)',
    start: () => startBedrockServer({ answer: (prompt) => `${preferred(prompt)}\nPerché la parola è usata così.` }),
    spec: () => 'bedrock:us.anthropic.claude-haiku-4-5-20251001-v1:0',
    options: (s) => ({ endpointUrl: s.url }),
    mode: 'digit-parse',
    method: 'generate',
    warning: /"\\n" not sent/,
  },
];

describe('ABRICOT on every server flavour', () => {
  it.each(CASES)('$name: $mode, every item predicts the digit the model prefers', async (c) => {
    const restore = useFakeAwsEnv();
    cleanups.push(restore);
    const server = await c.start();
    cleanups.push(() => server.close());
    const home = openHome(mkdtempSync(join(tmpdir(), 'likert-modes-')));
    const options = { env: {}, ...(c.options?.(server) ?? {}) };

    const [result] = await runLocal(parseRunSpec({ benchmark: 'sample/abricot', model: c.spec(server), limit: 8 }), {
      home,
      packageRoot: ROOT,
      providerOptions: options,
      jobs: 2,
    });

    expect(result?.status).toBe('completed');
    const manifest = await requireManifest(home, result?.run_id ?? '');
    expect(manifest.likert_mode, JSON.stringify(manifest.likert_scoring)).toBe(c.mode);
    expect(manifest.likert_scoring).toMatchObject({ mode: c.mode, method: c.method, reason: expect.any(String) });
    // The paper protocol sends lm-eval's one text; a chat-only endpoint gets it as one user
    // turn, and the manifest says so.
    const warnings = (manifest.warnings ?? []).filter((w) => !/completion-style prompts are sent in their chat form/.test(w));
    if (c.warning) expect(warnings).toEqual([expect.stringMatching(c.warning)]);
    else expect(warnings).toEqual([]);
    // The manifest says whether a chat template shaped the prompt (none was asked for here).
    expect(manifest.prompt_notes?.[0]).toMatch(
      c.mode === 'likelihood' ? /no chat template applied/ : /chat endpoints apply the served model's own chat template/,
    );
    // The report says which mode ran, by which method, and why.
    const report = readFileSync(result?.status === 'completed' ? result.report : '', 'utf8');
    expect(report).toContain(`method ${c.method}`);
    expect(report).toContain(`${c.mode} —`);
    const docs = await readItems(home.store, result?.run_id ?? '');
    expect(docs.length).toBe(8);
    for (const doc of docs) {
      expect(doc.record.verdict, `${doc.record.task_id}: ${doc.record.error ?? ''}`).toBe('OK');
      expect(doc.record.predicted).toBe(doc.record.gold);
    }
  });

  it('records why a mode was out: the chat-only server answered 404 on /completions', async () => {
    const server = await startOpenAiServer({ flavour: 'openai-chat', logprob: model });
    cleanups.push(() => server.close());
    const home = openHome(mkdtempSync(join(tmpdir(), 'likert-modes-')));

    const [result] = await runLocal(parseRunSpec({ benchmark: 'sample/abricot', model: `openai:${server.url}#fake-model`, limit: 2 }), {
      home,
      packageRoot: ROOT,
      providerOptions: { env: {} },
      jobs: 1,
    });

    const manifest = await requireManifest(home, result?.run_id ?? '');
    expect(manifest.likert_scoring?.reason).toMatch(/404/);
    // One probe of /completions, never again: scoring goes to chat.
    expect(server.requests.filter((r) => r.path.endsWith('/v1/completions'))).toHaveLength(1);
  });

  it('refuses --likert-mode likelihood on a server without prompt log-probabilities before any item runs', async () => {
    const server = await startOpenAiServer({ flavour: 'llama.cpp', logprob: model });
    cleanups.push(() => server.close());
    const home = openHome(mkdtempSync(join(tmpdir(), 'likert-modes-')));

    const err = await runLocal(parseRunSpec({ benchmark: 'sample/abricot', model: `openai:${server.url}#fake-model`, likertMode: 'likelihood', limit: 2 }), {
      home,
      packageRoot: ROOT,
      providerOptions: { env: {} },
      jobs: 1,
    }).catch((e: unknown) => e);

    expect(err).toMatchObject({ name: 'InputError', message: expect.stringContaining('--likert-mode likelihood') });
    expect(await home.ledger.listRuns()).toEqual([]);
  });

  it('forces next-token with --likert-mode on a server that could echo', async () => {
    const server = await startOpenAiServer({ flavour: 'vllm', logprob: model });
    cleanups.push(() => server.close());
    const home = openHome(mkdtempSync(join(tmpdir(), 'likert-modes-')));

    const [result] = await runLocal(
      parseRunSpec({ benchmark: 'sample/abricot', model: `openai:${server.url}#fake-model`, likertMode: 'next-token', limit: 4 }),
      { home, packageRoot: ROOT, providerOptions: { env: {} }, jobs: 1 },
    );

    const manifest = await requireManifest(home, result?.run_id ?? '');
    expect(manifest.likert_scoring).toMatchObject({ mode: 'next-token', reason: 'forced by --likert-mode next-token' });
    expect(result?.status === 'completed' ? result.metrics['accuracy/subtask=abstractness']?.value : null).toBe(1);
  });

  it('falls back to digit-parse, saying why, when the probe shows no digit among the top-k it would read', async () => {
    // TGI's Messages API (top 5): a chatty model whose first real token is a word, digits far behind.
    const chatty: LogprobFn = (_context, token) => (/^\s*\d$/.test(token) ? -9 : -0.5);
    const server = await startOpenAiServer({ flavour: 'tgi', logprob: chatty, answer: (prompt) => `Il valore è ${preferred(prompt)}` });
    cleanups.push(() => server.close());
    const home = openHome(mkdtempSync(join(tmpdir(), 'likert-modes-')));

    const [result] = await runLocal(parseRunSpec({ benchmark: 'sample/abricot', model: `openai:${server.url}#fake-model`, limit: 2 }), {
      home,
      packageRoot: ROOT,
      providerOptions: { env: {} },
      jobs: 1,
    });

    const manifest = await requireManifest(home, result?.run_id ?? '');
    expect(manifest.likert_mode).toBe('digit-parse');
    expect(manifest.likert_scoring?.reason).toMatch(
      /next-token log-probabilities cannot be trusted: no digit 1–5 among the top 5 alternatives of the answer's first real token \(position 0, "Il"\)/,
    );
  });
});
