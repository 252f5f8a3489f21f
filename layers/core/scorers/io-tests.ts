/**
 * The `io-tests` scorer (RoCode's shape, DESIGN §6): a program reads each test's input and
 * its output is compared with the expected one; samples run in the executor of their
 * language. Its task schema, metric plan and views live here.
 */
import { z } from 'zod';
import { TIME_CLOCKS } from '../benchmarks/index.ts';
import {
  accuracyOfUnits,
  accuracyRatio,
  compileErrorRateOfUnits,
  compileErrorRatio,
  strictAccuracyOfUnits,
  strictAccuracyRatio,
  summariseCodeTask,
  systemErrorRateOfUnits,
  systemErrorRatio,
} from '../metrics/index.ts';
import { anyPlan, passAt, pooled } from '../metrics/index.ts';
import { verdictCharts } from '../html/index.ts';
import { scoreIoTests } from '../judging/index.ts';
import type { IoTestsTask, Task } from '../types.ts';
import { executeCode } from './code-execution.ts';
import { taskBaseSchema } from './task-base.ts';
import type { Scorer } from './scorer.ts';

const IoTestSchema = z
  .object({
    name: z.string().optional(),
    input: z.string().optional(),
    output: z.string().optional(),
    inputPath: z.string().optional(),
    outputPath: z.string().optional(),
  })
  .loose();

const CheckerSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('tokens') }).loose(),
  z.object({ kind: z.literal('float'), abs: z.number().optional(), rel: z.number().optional() }).loose(),
  z.object({ kind: z.literal('program'), language: z.string().min(1), source: z.string() }).loose(),
]);

const IoTestsTaskSchema = z
  .object({
    ...taskBaseSchema,
    kind: z.literal('io-tests'),
    name: z.string().optional(),
    statement: z.string(),
    inputSpec: z.string(),
    outputSpec: z.string(),
    examples: z.array(z.object({ input: z.string(), output: z.string() }).loose()),
    tests: z.array(IoTestSchema),
    timeLimitMs: z.number().positive(),
    timeClock: z.enum(TIME_CLOCKS).optional(),
    english: z.object({ statement: z.string(), inputSpec: z.string(), outputSpec: z.string() }).optional(),
    memoryLimitMb: z.number().positive(),
    checker: CheckerSchema,
    solutions: z.record(z.string(), z.string()),
    humanSolutions: z.array(z.object({ code: z.string(), language: z.string() })).optional(),
  })
  .loose();

/**
 * Whether a task has io-tests (inline or stored beside the dataset): the loaders that move
 * large tests to files, and publish them for the cloud, handle only these.
 */
export function isIoTestsTask(task: Task): task is IoTestsTask {
  return task.kind === 'io-tests';
}

/** @example scorerOf({ kind: 'io-tests', … }) === ioTestsScorer */
export const ioTestsScorer: Scorer<IoTestsTask> = {
  id: 'io-tests',
  taskSchema: IoTestsTaskSchema,
  needsExecutor: true,
  likertModes: false,
  fewShotPool: false,
  unit: 'tasks',
  plan: (n) =>
    anyPlan({
      dimensions: ['difficulty', 'split', 'language'],
      summarise: summariseCodeTask,
      metrics: [
        pooled('accuracy', accuracyOfUnits, accuracyRatio),
        pooled('strict_accuracy', strictAccuracyOfUnits, strictAccuracyRatio),
        passAt(1, n),
        passAt(10, n),
        pooled('compile_error_rate', compileErrorRateOfUnits, compileErrorRatio),
        pooled('system_error_rate', systemErrorRateOfUnits, systemErrorRatio),
      ],
    }),
  // The language comes with the work item (the run's `--language`, or the benchmark's default).
  languageOf: () => undefined,
  testTimeMs: (task) => task.timeLimitMs * task.tests.length,
  testsTotal: (task) => task.tests.length,
  score: (ctx, task, generated) => executeCode(ctx, task, generated, undefined),
  execute: (job, host, options) =>
    scoreIoTests(job, host, { ...(options.loadTestFile ? { loadTestFile: options.loadTestFile } : {}), ...(options.runner ? { runner: options.runner } : {}) }),
  viewFields: (task) => [
    ['file stem', task.name ?? 'none (stdin/stdout)'],
    ['time limit', `${task.timeLimitMs} ms`],
    ['memory limit', `${task.memoryLimitMb} MB`],
    ['tests', task.tests.length],
    ['checker', task.checker.kind],
  ],
  inspect: (task) => ({
    kind: 'io-tests',
    files: task.name !== undefined ? `${task.name}.in → ${task.name}.out (stdin/stdout also)` : 'stdin → stdout (no file stem in the row or its statement)',
    tests: task.tests.length,
    examples: task.examples.length,
    time_limit_ms: task.timeLimitMs,
    memory_limit_mb: task.memoryLimitMb,
    checker: task.checker.kind,
    reference_languages: Object.keys(task.solutions).sort(),
  }),
  charts: verdictCharts,
};
