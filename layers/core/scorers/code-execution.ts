/**
 * What the code scorers (io-tests, unit-tests) share: a sample goes to the run's executor in
 * its language, with the run's time scale and that language's toolchain options. A harness
 * failure is the sample's `SE`; a transient one (a throttled runner) is thrown for the queue.
 */
import { TransientError } from '../errors.ts';
import { toolchainOptionsByLanguage } from '../languages/index.ts';
import type { ScoreOutcome, Task } from '../types.ts';
import type { Generation, ScoringContext } from './scorer.ts';

/**
 * Scores a code sample through `ctx.executor`.
 * @example
 * const outcome = await executeCode(ctx, task, generated, task.language);
 */
export async function executeCode(ctx: ScoringContext, task: Task, generated: Generation, taskLanguage: string | undefined): Promise<ScoreOutcome> {
  if (!ctx.executor) return { verdict: 'SE', testsPassed: 0, testsTotal: 0, error: 'no executor is configured for code tasks' };
  const language = generated.item.language ?? taskLanguage;
  if (!language) return { verdict: 'SE', testsPassed: 0, testsTotal: 0, error: `no language for task ${task.id}` };
  const toolchain = toolchainOptionsByLanguage(ctx.manifest)[language];
  try {
    return await ctx.executor.execute({
      scorer: task.kind,
      task,
      language,
      code: generated.answer,
      timeScale: ctx.manifest.time_scale,
      ...(toolchain ? { toolchain } : {}),
    });
  } catch (error) {
    // A transient failure (a throttled runner) is no verdict: the stage's message is retried.
    if (error instanceof TransientError) throw error;
    return { verdict: 'SE', testsPassed: 0, testsTotal: 0, error: `executor failed: ${(error as Error).message}` };
  }
}
