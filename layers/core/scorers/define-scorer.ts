/**
 * A scorer kind as the registry holds it: any task in, its own task shape checked at the door.
 * Each kind is written against its own task type (`Scorer<IoTestsTask>`); the registry holds
 * scorers of any task. Rather than erase the type (a cast would let the io-tests scorer be
 * handed a likert task unnoticed), {@link defineScorer} wraps every method that takes a task:
 * the task's `kind` is checked against the scorer's id before the kind's own method sees it,
 * so the kind's code only ever receives the task shape it was typed against.
 *
 * @example
 * const SCORERS: readonly Scorer[] = [defineScorer(ioTestsScorer), defineScorer(likertScorer)];
 */
import { HarnessError } from '../errors.ts';
import type { ExecutionJob } from '../ports.ts';
import type { Task } from '../types.ts';
import type { ChoiceGeneration, Scorer } from './scorer.ts';

/**
 * `scorer` as a scorer of any task. `T` is a member of the {@link Task} union, so a task whose
 * `kind` is the scorer's id is a `T`.
 * @throws HarnessError (from the returned scorer's methods) for a task of another kind.
 */
export function defineScorer<T extends Task>(scorer: Scorer<T>): Scorer {
  const owns = (task: Task): task is T => task.kind === scorer.id;
  const own = (task: Task): T => {
    if (!owns(task)) throw new HarnessError(`the ${scorer.id} scorer was given a ${task.kind} task (${task.id})`);
    return task;
  };
  const ownJob = (job: ExecutionJob): ExecutionJob<T> => ({ ...job, scorer: scorer.id, task: own(job.task) });
  const choices = (generation: ChoiceGeneration<T> | undefined): ChoiceGeneration | undefined =>
    generation && {
      calls: generation.calls,
      maxTokens: generation.maxTokens,
      generate: (task, prompt, charge) => generation.generate(own(task), prompt, charge),
    };
  const { choiceGeneration, textEvidence, execute, recordAnswer } = scorer;
  return {
    id: scorer.id,
    taskSchema: scorer.taskSchema,
    needsExecutor: scorer.needsExecutor,
    likertModes: scorer.likertModes,
    fewShotPool: scorer.fewShotPool,
    unit: scorer.unit,
    plan: (n) => scorer.plan(n),
    languageOf: (task) => scorer.languageOf(own(task)),
    testTimeMs: (task) => scorer.testTimeMs(own(task)),
    testsTotal: (task) => scorer.testsTotal(own(task)),
    ...(choiceGeneration && { choiceGeneration: (ctx) => choices(choiceGeneration.call(scorer, ctx)) }),
    ...(textEvidence && { textEvidence: (answer) => textEvidence.call(scorer, answer) }),
    score: (ctx, task, generated) => scorer.score(ctx, own(task), generated),
    ...(execute && { execute: (job, host, options) => execute.call(scorer, ownJob(job), host, options) }),
    ...(recordAnswer && { recordAnswer: (generated, outcome) => recordAnswer.call(scorer, generated, outcome) }),
    viewFields: (task) => scorer.viewFields(own(task)),
    inspect: (task, benchmark) => scorer.inspect(own(task), benchmark),
    charts: (records) => scorer.charts(records),
  };
}
