/**
 * A hand-made benchmark that lives only in the tests: how warm an Italian word feels, 1–5
 * (a likert benchmark, so it runs without a sandbox). It declares everything a benchmark
 * file declares — rows, prompt, protocol, scorer, headline, published dataset, bundled suite
 * and a metric of its own — and is registered only in a registry of its own.
 */
import type { Benchmark, RowLocation } from '#core/benchmarks/benchmark.ts';
import { defaultProtocol, type ProtocolDefinition, type RunProtocol } from '#core/benchmarks/protocol.ts';
import { createBenchmarkRegistry } from '#core/benchmarks/registry.ts';
import { InputError } from '#core/errors.ts';
import type { LikertTask } from '#core/types.ts';

export const TOY_ID = 'toy-warmth';

const PROTOCOLS: readonly ProtocolDefinition[] = [
  {
    name: 'zero-shot',
    description: 'hand-made: the word alone, a digit 1–5, accuracy',
    settings: { n: 1, params: { temperature: 0, topP: 1, maxTokens: 2, stop: ['\n'] }, promptStyle: 'completion', headline: 'accuracy' },
  },
];

function parseRow(row: Record<string, unknown>, loc: RowLocation): LikertTask[] {
  const { id, word, warmth } = row;
  if (typeof id !== 'string' || id === '') throw new InputError('must be a non-empty string', { ...loc, field: 'id' });
  if (typeof word !== 'string' || word === '') throw new InputError('must be a non-empty string', { ...loc, field: 'word' });
  if (typeof warmth !== 'number' || !Number.isInteger(warmth) || warmth < 1 || warmth > 5)
    throw new InputError('must be an integer 1–5', { ...loc, field: 'warmth' });
  const split = typeof row.split === 'string' ? row.split : 'test';
  // One scale: the toy's own subtask (a likert task's subtasks are its benchmark's).
  return [
    {
      kind: 'likert',
      id: `warmth/${id}`,
      benchmark: TOY_ID,
      split,
      slices: { subtask: 'warmth' },
      subtask: 'warmth',
      itemId: id,
      text: word,
      target: word,
      goldMean: (warmth - 1) / 4,
      gold: warmth,
    },
  ];
}

function makeToy(protocol: RunProtocol): Benchmark<LikertTask> {
  return {
    id: TOY_ID,
    scorer: 'likert',
    title: 'Toy — how warm an Italian word feels (1–5)',
    protocols: PROTOCOLS,
    protocol,
    bind: makeToy,
    fields: [
      { field: 'id', columns: ['id'], required: true },
      { field: 'word', columns: ['word'], required: true },
      { field: 'warmth', columns: ['warmth'], required: true },
    ],
    parseRow,
    defaults: { params: { ...protocol.settings.params, stop: [...protocol.settings.params.stop] }, n: 1 },
    buildPrompt: (task) => {
      const text = `Quanto è calda la parola "${task.target}", da 1 a 5?\nRisposta:`;
      return { style: protocol.settings.promptStyle, messages: [{ role: 'user', content: text }], completion: text };
    },
    reference: (task) => String(task.gold),
    postprocess: (raw) => raw.trim(),
    languageOf: () => undefined,
    choices: ['1', '2', '3', '4', '5'],
    headlineSlices: ['subtask=warmth'],
    dataset: { hub: 'polyeval-tests/toy-warmth', files: /^toy_(train|test)\.jsonl$/ },
    bundled: [{ name: 'toy', file: 'toy/items.jsonl', description: 'six hand-written Italian words', executorMsPerSample: {} }],
    extraMetrics: {
      ids: ['word_length'],
      needs: [],
      compute: ({ tasks, head }) => {
        const mean = tasks.reduce((s, t) => s + t.target.length, 0) / tasks.length;
        return [{ ...head, metric: 'word_length', slice: 'all', value: mean, ci_low: null, ci_high: null, n: tasks.length, reason: null }];
      },
    },
  };
}

export const toyBenchmark = makeToy(defaultProtocol(PROTOCOLS));

/** The toy alone: what a test passes where the application takes a registry. */
export const TOY_REGISTRY = createBenchmarkRegistry([toyBenchmark as unknown as Benchmark]);

/** Six items, hand-written. */
export const TOY_ROWS = [
  { id: 'w1', word: 'fuoco', warmth: 5 },
  { id: 'w2', word: 'ghiaccio', warmth: 1 },
  { id: 'w3', word: 'abbraccio', warmth: 5 },
  { id: 'w4', word: 'nebbia', warmth: 2 },
  { id: 'w5', word: 'tè', warmth: 4 },
  { id: 'w6', word: 'sedia', warmth: 3 },
];
