/**
 * The zod schema of a {@link Task} as stored between processes (the cloud plan stage's
 * `runs/<id>/tasks.jsonl`, read back by generate, execute and aggregate). Loose like every
 * stored schema: a field a newer polyeval adds is kept. Typed against `Task`, so the schema
 * and the type cannot drift apart.
 */
import { z } from 'zod';
import type { IoTestsTask, LikertTask, Task, UnitTestsTask } from '../types.ts';

const base = {
  id: z.string().min(1),
  benchmark: z.string().min(1),
  split: z.string(),
  difficulty: z.string().optional(),
  slices: z.record(z.string(), z.string()),
};

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
    ...base,
    kind: z.literal('io-tests'),
    name: z.string().optional(),
    statement: z.string(),
    inputSpec: z.string(),
    outputSpec: z.string(),
    examples: z.array(z.object({ input: z.string(), output: z.string() }).loose()),
    tests: z.array(IoTestSchema),
    timeLimitMs: z.number().positive(),
    timeClock: z.enum(['cpu', 'wall']).optional(),
    english: z.object({ statement: z.string(), inputSpec: z.string(), outputSpec: z.string() }).optional(),
    memoryLimitMb: z.number().positive(),
    checker: CheckerSchema,
    solutions: z.record(z.string(), z.string()),
    humanSolutions: z.array(z.object({ code: z.string(), language: z.string() })).optional(),
  })
  .loose();

const UnitTestsTaskSchema = z
  .object({
    ...base,
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

const LikertTaskSchema = z
  .object({
    ...base,
    kind: z.literal('likert'),
    subtask: z.enum(['abstractness', 'inclusiveness']),
    itemId: z.string(),
    text: z.string(),
    target: z.string(),
    lemma: z.string().optional(),
    goldMean: z.number(),
    goldStd: z.number().optional(),
    gold: z.number(),
  })
  .loose();

/** Any task, by its `kind` (an error names the field of that kind's schema). */
export const TaskSchema = z.discriminatedUnion('kind', [IoTestsTaskSchema, UnitTestsTaskSchema, LikertTaskSchema]);

// The schema reads what the type says, kind by kind (a compile error if they drift apart).
const checks: [z.ZodType<IoTestsTask>, z.ZodType<UnitTestsTask>, z.ZodType<LikertTask>, z.ZodType<Task>] = [
  IoTestsTaskSchema,
  UnitTestsTaskSchema,
  LikertTaskSchema,
  TaskSchema,
];
void checks;
