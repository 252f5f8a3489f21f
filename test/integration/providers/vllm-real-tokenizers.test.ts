/**
 * ABRICOT in likelihood mode through a fake vLLM that tokenizes with real model tokenizers
 * (Llama 3 and Qwen 3 byte-level BPE, the Llama 2 / Mistral SentencePiece family) and reports
 * tokens, BOS and usage exactly as vLLM does — including `usage.completion_tokens: 1` for an
 * echo with `max_tokens: 0`, which used to make the provider drop the choice's own digit.
 * Every item must predict the digit the fake model prefers, in both token spellings vLLM
 * has used (`convert_ids_to_tokens` pieces and per-id `decode`).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openHome, packageRoot } from '#app/local/home.ts';
import { requireManifest, runLocal } from '#app/local/run.ts';
import { readItems } from '#core/report/aggregate.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import { startOpenAiServer, type LogprobFn } from '../../fakes/wire-servers/index.ts';
import type { TokenizerName, TokenStrings } from '../../fakes/wire-servers/real-tokenizers.ts';
import { sampleGoldDigit } from '../../support/abricot-sample.ts';

const ROOT = packageRoot();

const preferred = sampleGoldDigit;
/** The model gives the preferred digit's token -0.1 and every other token (the space before it too) -4. */
const model: LogprobFn = (context, token) => (token.trim() !== '' && token.trim() === preferred(context) ? -0.1 : -4);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const CASES: { tokenizer: TokenizerName; strings: TokenStrings }[] = [
  { tokenizer: 'llama3', strings: 'decoded' },
  { tokenizer: 'llama3', strings: 'raw' },
  { tokenizer: 'qwen3', strings: 'decoded' },
  { tokenizer: 'qwen3', strings: 'raw' },
  { tokenizer: 'llama2', strings: 'decoded' },
  { tokenizer: 'llama2', strings: 'raw' },
];

describe('ABRICOT likelihood on vLLM with real tokenizers', () => {
  it.each(CASES)(
    '$tokenizer, $strings token strings: every item predicts the digit the model prefers',
    async ({ tokenizer, strings }) => {
      const server = await startOpenAiServer({ flavour: 'vllm', tokenizer, tokenStrings: strings, logprob: model, answer: (prompt) => preferred(prompt) });
      cleanups.push(() => server.close());
      const home = openHome(mkdtempSync(join(tmpdir(), 'vllm-real-')));

      const [result] = await runLocal(parseRunSpec({ benchmark: 'sample/abricot', model: `openai:${server.url}#fake-model`, limit: 12 }), {
        home,
        packageRoot: ROOT,
        providerOptions: { env: {} },
        jobs: 4,
      });

      expect(result?.status).toBe('completed');
      const manifest = await requireManifest(home, result?.run_id ?? '');
      expect(manifest.likert_scoring, manifest.likert_scoring?.reason).toMatchObject({ mode: 'likelihood', method: 'openai-echo' });
      const docs = await readItems(home.store, result?.run_id ?? '');
      expect(docs.length).toBe(12);
      for (const doc of docs) {
        expect(doc.record.verdict, `${doc.record.task_id}: ${doc.record.error ?? ''}`).toBe('OK');
        const logprobs = doc.outcome.choiceLogprobs ?? [];
        // Never a tie: the preferred choice stands out.
        expect(new Set(logprobs).size, JSON.stringify(logprobs)).toBeGreaterThan(1);
      }
      expect(result?.status === 'completed' ? (result.warnings ?? []) : ['not completed']).toEqual([]);
    },
    60_000,
  );

  it('falls back to next-token, saying why, when the echoed tokens do not spell the prompt (--return-tokens-as-token-ids)', async () => {
    const server = await startOpenAiServer({
      flavour: 'vllm',
      tokenizer: 'qwen3',
      tokenStrings: 'token-ids',
      logprob: model,
      answer: (prompt) => preferred(prompt),
    });
    cleanups.push(() => server.close());
    const home = openHome(mkdtempSync(join(tmpdir(), 'vllm-real-')));

    const [result] = await runLocal(parseRunSpec({ benchmark: 'sample/abricot', model: `openai:${server.url}#fake-model`, limit: 4 }), {
      home,
      packageRoot: ROOT,
      providerOptions: { env: {} },
      jobs: 2,
    });

    const manifest = await requireManifest(home, result?.run_id ?? '');
    expect(manifest.likert_scoring).toMatchObject({
      mode: 'next-token',
      reason: expect.stringMatching(/prompt log-probabilities cannot be trusted: the echoed tokens do not spell the end of the prompt/),
    });
    expect(result?.status === 'completed' ? result.metrics['accuracy/subtask=abstractness']?.value : null).toBe(1);
  }, 60_000);

  it('ends with a warning in the summary when the choices tie on most items', async () => {
    // A model that gives every token the same log-probability: every choice scores the same.
    const server = await startOpenAiServer({ flavour: 'vllm', tokenizer: 'qwen3', logprob: () => -1 });
    cleanups.push(() => server.close());
    const home = openHome(mkdtempSync(join(tmpdir(), 'vllm-real-')));

    const [result] = await runLocal(parseRunSpec({ benchmark: 'sample/abricot', model: `openai:${server.url}#fake-model`, limit: 4 }), {
      home,
      packageRoot: ROOT,
      providerOptions: { env: {} },
      jobs: 2,
    });

    expect(result?.status === 'completed' ? result.warnings : []).toEqual([
      expect.stringMatching(/^4 of 4 scored items \(100%\) gave all choices the same score/),
    ]);
  }, 60_000);
});
