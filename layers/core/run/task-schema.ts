/**
 * The zod schema of a {@link Task} as stored between processes (the cloud plan stage's
 * `runs/<id>/tasks.jsonl`, read back by generate, execute and aggregate), made of the task
 * schemas the scorer kinds declare (layers/core/scorers/). Loose like every stored schema: a
 * field a newer polyeval adds is kept. Each scorer's schema is typed against its task type,
 * so a schema and its type cannot drift apart.
 */
import { z } from 'zod';
import { SCORERS, type Scorer } from '../scorers/index.ts';
import type { Task } from '../types.ts';

type KindSchema = Parameters<typeof z.discriminatedUnion>[1][number];

/** The schema of a task of any of `scorers`' kinds. */
export function taskSchemaOf(scorers: readonly Scorer[]): z.ZodType<Task> {
  return z.discriminatedUnion('kind', scorers.map((s) => s.taskSchema) as unknown as [KindSchema, ...KindSchema[]]) as unknown as z.ZodType<Task>;
}

/** Any task, by its `kind` (an error names the field of that kind's schema). */
export const TaskSchema = taskSchemaOf(SCORERS);
