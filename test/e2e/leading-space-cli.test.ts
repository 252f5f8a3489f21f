/**
 * A chat model that always answers with a leading space token (`▁` then the digit, as
 * Mistral's instruct models do) through the real CLI, `openai:` and `ollama:`: the run picks
 * next-token mode and every ABRICOT item is predicted as the model prefers — the digit after
 * the space, never the stray no-space digit that leads the first position's top-k.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { leadingSpaceDigit, startOllamaServer, startOpenAiServer, type FakeServer } from '../fakes/wire-servers/index.ts';
import { ROOT, parseJson, runCli, tempHome } from '../support/cli.ts';
import { calamitaGold } from '#core/benchmarks/likert-gold.ts';

interface Item {
  text: string;
  abs_mean: number;
  inc_mean: number;
}
interface RunJson {
  likert_mode: string;
  likert_scoring?: { method: string };
  items: number;
  verdicts: Record<string, number>;
  metrics: Record<string, { value: number | null }>;
}
const items = readFileSync(join(ROOT, 'sample/abricot/items.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Item);
// The paper protocol's gold: the ABRICOT authors' rule (layers/core/benchmarks/likert-gold.ts).
const gold = calamitaGold;

/** The gold digit of the last question in a few-shot ABRICOT prompt (either subtask). */
function goldDigit(context: string): string {
  const question = context.slice(context.lastIndexOf('Assegna un valore di '));
  const sentence = /frase seguente:\s(.*?)\sDescrizione dei valori:/s.exec(question)?.[1] ?? '';
  const item = items.find((i) => i.text === sentence);
  if (!item) return '1';
  return String(gold(question.startsWith('Assegna un valore di astrazione') ? item.abs_mean : item.inc_mean));
}

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
