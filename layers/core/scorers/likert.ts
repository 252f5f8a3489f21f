/**
 * The `likert` scorer (ABRICOT's shape, DESIGN §6): the prediction is one of the benchmark's
 * choices, from log-probabilities (likelihood, next-token) or a digit parsed from generated
 * text (digit-parse), compared with the gold digit in process — no executor. Its task schema,
 * generation by choice scoring, metric plan and views live here; a benchmark's own subtasks
 * live in its file (ABRICOT's in benchmarks/abricot.ts).
 */
import { z } from 'zod';
import { InputError } from '../errors.ts';
import {
  exactMatchOfUnits,
  exactMatchRatio,
  likertSystemErrorRateOfUnits,
  likertSystemErrorRatio,
  parseFailureRateOfUnits,
  parseFailureRatio,
  pearsonMeanOfUnits,
  pearsonOfUnits,
  spearmanOfUnits,
  summariseLikertItem,
} from '../metrics/index.ts';
import { anyPlan, pooled } from '../metrics/index.ts';
import { likertCharts } from '../html/index.ts';
import { scoreLikert, type LikertEvidence } from '../judging/index.ts';
import type { LikertTask } from '../types.ts';
import { taskBaseSchema } from './task-base.ts';
import type { ChoiceGeneration, Scorer, ScoringContext } from './scorer.ts';

const LikertTaskSchema = z
  .object({
    ...taskBaseSchema,
    kind: z.literal('likert'),
    subtask: z.string(),
    itemId: z.string(),
    text: z.string(),
    target: z.string(),
    lemma: z.string().optional(),
    goldMean: z.number(),
    goldStd: z.number().optional(),
    gold: z.number(),
  })
  .loose();

/** Likelihood scores every choice in its own call; next-token asks for one token once. */
function choiceGeneration(ctx: ScoringContext): ChoiceGeneration<LikertTask> | undefined {
  const mode = ctx.manifest.likert_mode;
  if (mode !== 'likelihood' && mode !== 'next-token') return undefined;
  const { benchmark, provider } = ctx;
  const choices = benchmark.choices ?? [];
  return {
    calls: mode === 'likelihood' ? (benchmark.choices?.length ?? 1) : 1,
    maxTokens: 1,
    async generate(task, prompt, charge) {
      if (!provider.scoreChoices) throw new InputError(`provider ${provider.id} cannot score choices (likert mode ${mode})`, { field: 'likertMode' });
      const scoring = ctx.manifest.likert_scoring;
      const scores = await provider.scoreChoices({
        taskId: task.id,
        prompt,
        choices: choices.map((c) => `${benchmark.choiceDelimiter ?? ' '}${c}`),
        referenceIndex: choices.indexOf(String(task.gold)),
        ...(scoring ? { scoring } : {}),
      });
      await charge(scores.usage);
      const likert: LikertEvidence = {
        mode,
        logprobs: scores.logprobs,
        choices,
        ...(scores.floored && scores.floored.length > 0 ? { floored: scores.floored, ...(scores.floor !== undefined ? { floor: scores.floor } : {}) } : {}),
      };
      return {
        raw: JSON.stringify(scores.logprobs),
        answer: '',
        usage: scores.usage,
        latencyMs: scores.latencyMs,
        attempts: scores.attempts ?? 1,
        likert,
        ...(scores.refusal ? { refusal: scores.refusal } : {}),
      };
    },
  };
}

/** @example scorerOf({ kind: 'likert', … }) === likertScorer */
export const likertScorer: Scorer<LikertTask> = {
  id: 'likert',
  taskSchema: LikertTaskSchema,
  needsExecutor: false,
  likertModes: true,
  fewShotPool: true,
  unit: 'items',
  plan: () =>
    anyPlan({
      dimensions: ['subtask'],
      summarise: summariseLikertItem,
      metrics: [
        { id: 'pearson', evaluate: pearsonOfUnits, pooled: false },
        { id: 'pearson_mean', evaluate: pearsonMeanOfUnits, pooled: false },
        { id: 'spearman', evaluate: spearmanOfUnits, pooled: false },
        { id: 'accuracy', evaluate: exactMatchOfUnits, pooled: false, ratio: exactMatchRatio },
        pooled('parse_failure_rate', parseFailureRateOfUnits, parseFailureRatio),
        pooled('system_error_rate', likertSystemErrorRateOfUnits, likertSystemErrorRatio),
      ],
    }),
  languageOf: () => undefined,
  testTimeMs: () => 0,
  testsTotal: () => 1,
  choiceGeneration,
  textEvidence: (answer) => ({ likert: { mode: 'digit-parse', text: answer } }),
  score: async (_ctx, task, generated) => scoreLikert(task, generated.likert ?? { mode: 'digit-parse', text: generated.answer }),
  // A prediction from log-probabilities has no text: the record's answer is the chosen digit.
  recordAnswer: (generated, outcome) => (generated.likert && generated.likert.mode !== 'digit-parse' ? String(outcome.predicted ?? '') : generated.answer),
  viewFields: (task) => [
    ['subtask', task.subtask],
    ['sentence', task.text],
    ['target word', task.target],
    ['lemma', task.lemma],
    ['gold', task.gold],
    ['gold mean', task.goldMean],
    ['gold std', task.goldStd],
  ],
  inspect: (task, benchmark) => ({
    kind: 'likert',
    subtask: task.subtask,
    target: task.target,
    gold_mean: task.goldMean,
    gold: task.gold,
    gold_rule: benchmark.protocol.settings.gold ?? null,
    choices: benchmark.choices ?? [],
  }),
  charts: likertCharts,
};
