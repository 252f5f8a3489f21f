/**
 * The scorer registry: an explicit array with one entry per scorer kind, each in `<id>.ts` of
 * this folder (DESIGN §2). The task schema, how samples are generated and scored, the metric
 * plan, the `inspect` and report views, and whether an executor is needed are read from here;
 * no other file branches on a scorer kind (test/unit/scorers/no-kind-branches.test.ts).
 * Adding a kind is its file plus one line in {@link SCORERS} (and its task in types.ts' union).
 *
 * @example
 * scorerOf(task).needsExecutor; // true for io-tests and unit-tests
 * planFor('likert', 1).use((plan) => plan.dimensions); // ['subtask']
 */
import { HarnessError } from '../errors.ts';
import type { AnyPlan } from '../metrics/index.ts';
import type { ExecutionJob } from '../ports.ts';
import type { ProgramHost } from '../judging/index.ts';
import type { ScoreOutcome, ScorerKind, Task } from '../types.ts';
import { ioTestsScorer } from './io-tests.ts';
import { likertScorer } from './likert.ts';
import type { ExecuteOptions, Scorer } from './scorer.ts';
import { defineScorer } from './define-scorer.ts';
import { unitTestsScorer } from './unit-tests.ts';

export type { ChoiceGeneration, ExecuteOptions, Generation, Scorer, ScoringContext, ViewField } from './scorer.ts';
export { computeMetrics, type ComputeOptions } from './metrics-table.ts';
export { defineScorer } from './define-scorer.ts';
export { compareRuns, type CompareOptions, type CompareRow } from './compare-runs.ts';

/** A set of scorer kinds, looked up by id. */
export interface ScorerRegistry {
  readonly scorers: readonly Scorer[];
  /** The scorer of this kind. @throws Error for a kind no scorer declares (a programming error or a corrupt document). */
  byKind(kind: string): Scorer;
}

/**
 * A registry over `scorers` (tests build one with a toy kind).
 * @throws Error when two scorers share an id.
 */
export function createScorerRegistry(scorers: readonly Scorer[]): ScorerRegistry {
  const ids = scorers.map((s) => s.id as string);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup !== undefined) throw new Error(`two scorers have the id "${dup}"`);
  return {
    scorers,
    byKind(kind) {
      const scorer = scorers.find((s) => s.id === kind);
      if (!scorer) throw new Error(`unknown scorer kind "${kind}" (known: ${ids.join(', ')})`);
      return scorer;
    },
  };
}

// Each entry is typed by its own task shape; defineScorer holds it as a scorer of any task, checking each task's kind before the entry sees it.
/** Every scorer kind, in a fixed order. */
export const SCORERS: readonly Scorer[] = [defineScorer(ioTestsScorer), defineScorer(unitTestsScorer), defineScorer(likertScorer)];

export const SCORER_REGISTRY: ScorerRegistry = createScorerRegistry(SCORERS);

/** The scorer of a kind (a benchmark's `scorer`, a manifest's `benchmark.scorer`). */
export function scorerByKind(kind: ScorerKind | string): Scorer {
  return SCORER_REGISTRY.byKind(kind);
}

/** The scorer of a task. */
export function scorerOf(task: Task): Scorer {
  return SCORER_REGISTRY.byKind(task.kind);
}

/** The metric plan of a scorer kind for a run of `n` samples per task. */
export function planFor(kind: ScorerKind | string, n: number): AnyPlan {
  return scorerByKind(kind).plan(n);
}

/**
 * Judges a code job on a program host by its scorer's `execute` (the sandbox executor's one call).
 * @throws HarnessError for a kind whose samples run no program.
 */
export function executeOnHost(job: ExecutionJob, host: ProgramHost, options: ExecuteOptions): Promise<ScoreOutcome> {
  const scorer = scorerByKind(job.scorer);
  if (!scorer.execute) throw new HarnessError(`the ${job.scorer} scorer runs no program: its samples never reach an executor`);
  return scorer.execute(job, host, options);
}
export { isIoTestsTask } from './io-tests.ts';
export { taskView, type TaskView } from './task-view.ts';
