/**
 * A chat model that always answers with a leading space token (`▁` then the digit, as
 * Mistral's instruct models do) through the real CLI, `openai:` and `ollama:`: the run picks
 * next-token mode and every ABRICOT item is predicted as the model prefers — the digit after
 * the space, never the stray no-space digit that leads the first position's top-k.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { leadingSpaceDigit, startOllamaServer, startOpenAiServer, type FakeServer } from '../fakes/wire-servers/index.ts';
import { parseJson, runCli, tempHome } from '../support/cli.ts';
import { sampleGoldDigit } from '../support/abricot-sample.ts';

interface RunJson {
  likert_mode: string;
  likert_scoring?: { method: string };
  items: number;
  verdicts: Record<string, number>;
  metrics: Record<string, { value: number | null }>;
}

const goldDigit = sampleGoldDigit;

const model = leadingSpaceDigit(goldDigit);
const answer = (prompt: string): string => ` ${goldDigit(prompt)}`;

interface Case {
  name: string;
  start: () => Promise<FakeServer>;
  spec: (url: string) => string;
}

const CASES: Case[] = [
  {
    name: 'openai: → llama.cpp server',
    start: () => startOpenAiServer({ flavour: 'llama.cpp', logprob: model, answer }),
    spec: (u) => `openai:${u}#mistral-7b-instruct`,
  },
  {
    name: 'openai: → OpenAI-style chat-only server',
    start: () => startOpenAiServer({ flavour: 'openai-chat', logprob: model, answer }),
    spec: (u) => `openai:${u}#mistral-7b-instruct`,
  },
  { name: 'ollama:', start: () => startOllamaServer({ model: 'mistral:7b', logprob: model, answer }), spec: (u) => `ollama:${u}#mistral:7b` },
];

const servers: FakeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

describe('a chat model that answers with a leading space token', () => {
  it.each(CASES)(
    '$name: every ABRICOT item is predicted as the model prefers (next-token)',
    async (c) => {
      const server = await c.start();
      servers.push(server);
      const result = await runCli(['run', '-b', 'sample/abricot', '-m', c.spec(server.url), '--json', '-q', '--home', tempHome()]);
      expect(result.code, result.stderr).toBe(0);
      const run = parseJson<RunJson>(result);
      expect(run.likert_mode).toBe('next-token');
      expect(run.verdicts).toEqual({ OK: run.items });
      expect(run.metrics['accuracy/subtask=abstractness']?.value).toBe(1);
      expect(run.metrics['accuracy/subtask=inclusiveness']?.value).toBe(1);
    },
    240_000,
  );

  it.each(CASES)(
    '$name: digit-parse reads the digit after the space',
    async (c) => {
      const server = await c.start();
      servers.push(server);
      const result = await runCli([
        'run',
        '-b',
        'sample/abricot',
        '-m',
        c.spec(server.url),
        '--likert-mode',
        'digit-parse',
        '--json',
        '-q',
        '--home',
        tempHome(),
      ]);
      expect(result.code, result.stderr).toBe(0);
      const run = parseJson<RunJson>(result);
      expect(run.likert_mode).toBe('digit-parse');
      expect(run.metrics['accuracy/subtask=abstractness']?.value).toBe(1);
      expect(run.metrics['accuracy/subtask=inclusiveness']?.value).toBe(1);
    },
    240_000,
  );
});
