/**
 * A hand-made fourth scorer kind that lives only in the tests: `exact-word` — the model
 * answers one word and the sample is OK when it is the expected word (case and surrounding
 * punctuation ignored), judged in process. It declares everything a scorer file declares
 * (task schema, generation, scoring, metric plan, inspect and report views, no executor) and
 * is registered only in a registry of its own ({@link TOY_SCORERS}).
 */
import { z } from 'zod';
import type { AnyBenchmark, RowLocation } from '#core/benchmarks/benchmark.ts';
import { defaultProtocol, type ProtocolDefinition, type RunProtocol } from '#core/benchmarks/protocol.ts';
import { InputError } from '#core/errors.ts';
import { absent, present, type Counted } from '#core/metrics/measured.ts';
import { anyPlan } from '#core/metrics/plans.ts';
import { createScorerRegistry, SCORERS, type Scorer } from '#core/scorers/index.ts';
import { taskBaseSchema } from '#core/scorers/task-base.ts';
import type { TaskBase } from '#core/types.ts';

export const TOY_KIND = 'exact-word';

/** The toy kind's task: a question and the one word that answers it. */
export interface ExactWordTask extends TaskBase {
  kind: typeof TOY_KIND;
  question: string;
  expected: string;
}

const ExactWordTaskSchema = z.object({ ...taskBaseSchema, kind: z.literal(TOY_KIND), question: z.string(), expected: z.string().min(1) }).loose();

const normalise = (word: string): string =>
  word
    .trim()
    .toLowerCase()
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');

/** One unit per task: the share of its samples that named the word. */
interface WordUnit {
  ok: number;
  n: number;
}

const hitRate = (units: readonly WordUnit[]): Counted =>
  units.length === 0 ? { ...absent('no task'), n: 0 } : { ...present(units.reduce((s, u) => s + u.ok / u.n, 0) / units.length), n: units.length };

export const exactWordScorer: Scorer<ExactWordTask> = {
  id: TOY_KIND,
  taskSchema: ExactWordTaskSchema,
  needsExecutor: false,
  likertModes: false,
  fewShotPool: false,
  unit: 'items',
  plan: () =>
    anyPlan<WordUnit>({
      dimensions: [],
      summarise: (_id, records) => ({ ok: records.filter((r) => r.verdict === 'OK').length, n: records.length }),
      metrics: [{ id: 'accuracy', evaluate: hitRate, pooled: true, ratio: (u) => [u.ok / u.n, 1] }],
    }),
  languageOf: () => undefined,
  testTimeMs: () => 0,
  testsTotal: () => 1,
  score: async (_ctx, task, generated) => {
    const ok = normalise(generated.answer) === normalise(task.expected);
    return { verdict: ok ? 'OK' : 'WA', testsPassed: ok ? 1 : 0, testsTotal: 1, ...(ok ? {} : { error: `expected "${task.expected}"` }) };
  },
  viewFields: (task) => [
    ['question', task.question],
    ['expected word', task.expected],
  ],
  inspect: (task) => ({ kind: TOY_KIND, expected: task.expected }),
  charts: (records) => `<p>${records.filter((r) => r.verdict === 'OK').length} of ${records.length} words named</p>`,
};

/** The shipped kinds and the toy: the one registration line a new kind needs. */
export const TOY_SCORERS = createScorerRegistry([...SCORERS, exactWordScorer as unknown as Scorer]);

const PROTOCOLS: readonly ProtocolDefinition[] = [
  {
    name: 'zero-shot',
    description: 'hand-made: one Italian word answers each question',
    settings: { n: 1, params: { temperature: 0, topP: 1, maxTokens: 4, stop: ['\n'] }, promptStyle: 'completion', headline: 'accuracy' },
  },
];

function makeBenchmark(protocol: RunProtocol): AnyBenchmark {
  return {
    id: 'toy-words',
    scorer: TOY_KIND,
    title: 'Toy — name the Italian word',
    protocols: PROTOCOLS,
    protocol,
    bind: makeBenchmark,
    fields: [{ field: 'question', columns: ['question'], required: true }],
    parseRow: (row: Record<string, unknown>, loc: RowLocation): ExactWordTask[] => {
      if (typeof row.question !== 'string' || typeof row.word !== 'string') throw new InputError('needs question and word', { ...loc, field: 'question' });
      return [{ kind: TOY_KIND, id: String(row.id), benchmark: 'toy-words', split: 'test', slices: {}, question: row.question, expected: row.word }];
    },
    defaults: { params: { ...protocol.settings.params, stop: [...protocol.settings.params.stop] }, n: 1 },
    buildPrompt: (task: ExactWordTask) => ({ style: 'completion', messages: [{ role: 'user', content: task.question }], completion: `${task.question}\n` }),
    reference: (task: ExactWordTask) => task.expected,
    postprocess: (raw: string) => raw.trim(),
    languageOf: () => undefined,
  } as unknown as AnyBenchmark;
}

/** A benchmark of the toy kind (its own scorer field names the kind). */
export const toyWords = makeBenchmark(defaultProtocol(PROTOCOLS));
