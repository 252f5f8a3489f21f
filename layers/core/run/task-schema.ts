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

/**
 * The schema of a task of any of `scorers`' kinds.
 * @throws Error for no scorers (a programming error).
 */
export function taskSchemaOf(scorers: readonly Scorer[]): z.ZodType<Task> {
  const [first, ...rest] = scorers.map((s) => s.taskSchema);
  if (first === undefined) throw new Error('a task schema needs at least one scorer kind');
  return z.discriminatedUnion('kind', [first, ...rest]);
}

/** Any task, by its `kind` (an error names the field of that kind's schema). */
export const TaskSchema = taskSchemaOf(SCORERS);
