/**
 * The tokenizer-family conformance matrix: ABRICOT through every server kind the fakes copy ×
 * every likert mode that server offers, for models of six real tokenizer families (Llama 2,
 * Llama 3.x, Qwen 3, Gemma 3, Mistral v1 and v3 — real-tokenizers.ts). Each fake tokenizes and
 * generates as that family does: the SentencePiece families with a dummy prefix answer with a
 * leading space token (`▁` then `4`: none of their vocabularies holds `▁4`), the model behind
 * them leading with that space and keeping a wrong stray digit beside it; the others answer the
 * digit at once. Every item must be predicted as the fake model prefers, in every row.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openHome, packageRoot } from '#app/local/home.ts';
import { requireManifest, runLocal } from '#app/local/run.ts';
import { readItems } from '#core/report/aggregate.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import type { ProviderOptions } from '#providers/index.ts';
import { dummyPrefix, TOKENIZER_NAMES, type TokenizerName } from '../../fakes/wire-servers/real-tokenizers.ts';
import {
  favourDigit,
  leadingSpaceDigit,
  startOllamaServer,
  startOpenAiServer,
  startSageMakerServer,
  type FakeServer,
  type LogprobFn,
} from '../../fakes/wire-servers/index.ts';
import { useFakeAwsEnv } from './harness.ts';
import { sampleGoldDigit } from '../../support/abricot-sample.ts';

const ROOT = packageRoot();

const preferred = sampleGoldDigit;

/** The family's model: its log-probabilities, and its greedy answer after a context. */
function modelOf(family: TokenizerName): { logprob: LogprobFn; answer: (prompt: string) => string } {
  const leading = dummyPrefix(family);
  return {
    logprob: leading ? leadingSpaceDigit(preferred) : favourDigit(preferred),
    // After a context that already ends in the delimiter (TGI's raw inputs), the digit comes at once.
    answer: (prompt) => `${leading && !prompt.endsWith(' ') ? ' ' : ''}${preferred(prompt)}`,
  };
}

type Mode = 'likelihood' | 'next-token' | 'digit-parse';

interface ServerKind {
  name: string;
  modes: readonly Mode[];
  start: (family: TokenizerName) => Promise<Pick<FakeServer, 'url' | 'close'>>;
  spec: (server: Pick<FakeServer, 'url'>) => string;
  options?: (server: Pick<FakeServer, 'url'>) => ProviderOptions;
  aws?: boolean;
}

const SERVERS: readonly ServerKind[] = [
  {
    name: 'vLLM',
    modes: ['likelihood', 'next-token', 'digit-parse'],
    start: (f) => startOpenAiServer({ flavour: 'vllm', tokenizer: f, ...modelOf(f) }),
    spec: (s) => `openai:${s.url}#model`,
  },
  {
    name: 'TGI Messages API',
    modes: ['next-token', 'digit-parse'],
    start: (f) => startOpenAiServer({ flavour: 'tgi', tokenizer: f, ...modelOf(f) }),
    spec: (s) => `openai:${s.url}#tgi`,
  },
  {
    name: 'llama.cpp server',
    modes: ['next-token', 'digit-parse'],
    start: (f) => startOpenAiServer({ flavour: 'llama.cpp', tokenizer: f, ...modelOf(f) }),
    spec: (s) => `openai:${s.url}#model`,
  },
  {
    name: 'Ollama',
    modes: ['next-token', 'digit-parse'],
    start: (f) => startOllamaServer({ model: 'family:latest', tokenizer: f, ...modelOf(f) }),
    spec: (s) => `ollama:${s.url}#family:latest`,
  },
  {
    name: 'TGI /generate on SageMaker (#tgi)',
    modes: ['likelihood', 'next-token', 'digit-parse'],
    start: (f) => startSageMakerServer({ tokenizer: f, ...modelOf(f) }),
    spec: () => 'sagemaker:family-tgi#tgi',
    options: (s) => ({ endpointUrl: s.url }),
    aws: true,
  },
  {
    name: 'LMI (vLLM) on SageMaker (#openai)',
    modes: ['next-token', 'digit-parse'],
    start: (f) => startSageMakerServer({ tokenizer: f, noPromptLogprobs: true, ...modelOf(f) }),
    spec: () => 'sagemaker:family-lmi#openai',
    options: (s) => ({ endpointUrl: s.url }),
    aws: true,
  },
];

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const ROWS = SERVERS.flatMap((server) => server.modes.map((mode) => ({ server, mode, label: `${server.name} × ${mode}` })));

describe.each(TOKENIZER_NAMES)('%s', (family) => {
  it.each(ROWS)(
    '$label: every item predicts the digit the model prefers',
    async ({ server: kind, mode }) => {
      if (kind.aws) cleanups.push(useFakeAwsEnv());
      const server = await kind.start(family);
      cleanups.push(() => server.close());
      const home = openHome(mkdtempSync(join(tmpdir(), 'family-conformance-')));

      const [result] = await runLocal(parseRunSpec({ benchmark: 'sample/abricot', model: kind.spec(server), likertMode: mode, limit: 4 }), {
        home,
        packageRoot: ROOT,
        providerOptions: { env: {}, ...(kind.options?.(server) ?? {}) },
        jobs: 2,
      });

      expect(result?.status).toBe('completed');
      const manifest = await requireManifest(home, result?.run_id ?? '');
      expect(manifest.likert_mode).toBe(mode);
      const docs = await readItems(home.store, result?.run_id ?? '');
      expect(docs.length).toBe(4);
      for (const doc of docs) {
        expect(doc.record.verdict, `${doc.record.task_id}: ${doc.record.error ?? ''}`).toBe('OK');
        expect(doc.record.predicted).toBe(doc.record.gold);
      }
    },
    120_000,
  );
});
