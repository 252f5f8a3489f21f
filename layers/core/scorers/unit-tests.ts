/**
 * The `unit-tests` scorer (MXEval's shape, DESIGN §6): program = prompt + completion + test,
 * and the test's `main` must run to its end; samples run in the executor of the task's
 * language. Its task schema, metric plan and views live here.
 */
import { z } from 'zod';
import { compileErrorRateOfUnits, compileErrorRatio, summariseCodeTask, systemErrorRateOfUnits, systemErrorRatio } from '../metrics/index.ts';
import { anyPlan, passAt, pooled } from '../metrics/index.ts';
import { verdictCharts } from '../html/index.ts';
import { clipField } from '../html/index.ts';
import { scoreUnitTests } from '../judging/index.ts';
import type { UnitTestsTask } from '../types.ts';
import { executeCode } from './code-execution.ts';
import { taskBaseSchema } from './task-base.ts';
import type { Scorer } from './scorer.ts';

const UnitTestsTaskSchema = z
  .object({
    ...taskBaseSchema,
    kind: z.literal('unit-tests'),
    language: z.string().min(1),
    prompt: z.string(),
    entryPoint: z.string(),
    test: z.string(),
    canonicalSolution: z.string(),
    canonicalSolutions: z.array(z.string()).optional(),
    description: z.string().optional(),
  })
  .loose();

/** @example scorerOf({ kind: 'unit-tests', … }) === unitTestsScorer */
export const unitTestsScorer: Scorer<UnitTestsTask> = {
  id: 'unit-tests',
  taskSchema: UnitTestsTaskSchema,
  needsExecutor: true,
  likertModes: false,
  fewShotPool: false,
  unit: 'tasks',
  plan: (n) =>
    anyPlan({
      dimensions: ['language'],
      summarise: summariseCodeTask,
      metrics: [
        passAt(1, n),
        passAt(5, n),
        passAt(10, n),
        pooled('compile_error_rate', compileErrorRateOfUnits, compileErrorRatio),
        pooled('system_error_rate', systemErrorRateOfUnits, systemErrorRatio),
      ],
    }),
  languageOf: (task) => task.language,
  // The test program runs under the scorer's own limits, not a per-task one.
  testTimeMs: () => 0,
  testsTotal: () => 1,
  score: (ctx, task, generated) => executeCode(ctx, task, generated, task.language),
  execute: (job, host, options) => scoreUnitTests(job, host, { token: options.token, ...(options.runner ? { runner: options.runner } : {}) }),
  viewFields: (task) => [
    ['language', task.language],
    ['entry point', task.entryPoint],
    ['test program', clipField(task.test)],
  ],
  inspect: (task, benchmark) => ({
    kind: 'unit-tests',
    language: task.language,
    entry_point: task.entryPoint,
    test_lines: task.test.split('\n').filter((l) => l.trim() !== '').length,
    reference_answers: benchmark.referenceCount?.(task) ?? (task.canonicalSolution ? 1 : 0),
  }),
  charts: verdictCharts,
};
