/**
 * A scorer kind: how a sample of one task shape becomes a verdict (DESIGN §1, §2). Each kind
 * declares, in its own file of this folder, everything that varies by it — its task schema,
 * how its samples are generated and scored, its metric plan, how it shows in `inspect` and in
 * the report, and whether it needs an executor — so nothing else branches on the kind.
 *
 * @example
 * const scorer = scorerOf(task); // layers/core/scorers/index.ts
 * const outcome = await scorer.score(ctx, task, generated);
 */
import type { z } from 'zod';
import type { AnyBenchmark } from '../benchmarks/index.ts';
import type { AnyPlan } from '../metrics/index.ts';
import type { LikertScoring, Prompt, Provider } from '../models/index.ts';
import type { RunToolchainSettings } from '../languages/index.ts';
import type { Executor, ExecutionJob } from '../ports.ts';
import type { LikertEvidence } from '../judging/index.ts';
import type { ProgramHost, TestFileLoader } from '../judging/index.ts';
import type { ProgramRunner } from '../judging/index.ts';
import type { LanguageId, LikertMode, RunRecord, ScoreOutcome, Task, TaskBase, TokenUsage } from '../types.ts';

/**
 * What a scorer reads of its run: the executor, the model, the benchmark and the manifest's
 * scoring settings. run/engine.ts's `RunContext` is one (a scorer sits inside the run's ring,
 * so it names only the fields it reads, never the run's own types).
 */
export interface ScoringContext {
  readonly executor?: Executor | undefined;
  readonly provider: Provider;
  readonly benchmark: AnyBenchmark;
  readonly manifest: RunToolchainSettings & {
    readonly time_scale: number;
    readonly likert_mode: LikertMode | null;
    readonly likert_scoring?: LikertScoring | null | undefined;
  };
}

/** What a scorer reads of a generated sample (run/engine.ts's `GeneratedItem` is one). */
export interface Generation {
  /** The work item: a code sample may carry its own language (RoCode's per-item languages). */
  item: { language?: string | undefined };
  raw: string;
  answer: string;
  usage: TokenUsage | null;
  latencyMs: number | null;
  attempts: number;
  likert?: LikertEvidence | undefined;
  failure?: string | undefined;
  refusal?: string | undefined;
}

/** What a scorer's task shape has at least: the shared fields and its kind. */
export type KindTask = TaskBase & { kind: string };

/** What the sandbox gives a code scorer's {@link Scorer.execute}. */
export interface ExecuteOptions {
  /** Reads a test stored beside the dataset (io-tests). */
  loadTestFile?: TestFileLoader;
  /** A per-execution random token a unit-test program prints after its last assertion. */
  token: () => string;
  /** Where the program runs (default: in process on the host). */
  runner?: ProgramRunner;
}

/** A generation that scores the benchmark's choices instead of generating text (likert's log-probability modes). */
export interface ChoiceGeneration<T extends KindTask = Task> {
  /** Provider calls one sample makes (for the cost estimate). */
  calls: number;
  /** Tokens one call may generate. */
  maxTokens: number;
  /** Makes the calls, charging each call's usage; throws like a provider does. */
  generate(
    task: T,
    prompt: Prompt,
    charge: (usage: TokenUsage) => Promise<number>,
  ): Promise<Pick<Generation, 'raw' | 'answer' | 'usage' | 'latencyMs' | 'attempts' | 'likert' | 'refusal'>>;
}

/** One labelled fact of a task, as the report's sample browser shows it. */
export type ViewField = readonly [label: string, value: string | number | undefined];

/** A scorer kind; `T` is the task shape it scores. */
export interface Scorer<T extends KindTask = Task> {
  readonly id: T['kind'];
  /** The stored form of its tasks (the cloud plan's `tasks.jsonl`), typed against `T`; an object schema with a literal `kind`, so the kinds' schemas make one discriminated union (run/task-schema.ts). */
  readonly taskSchema: z.ZodType<T> & z.core.$ZodTypeDiscriminable;
  /** Whether its samples are scored by the executor of their language (a sandbox; runners in AWS). */
  readonly needsExecutor: boolean;
  /** Whether a run of it picks a likert mode (log-probabilities of choices, or a parsed digit). */
  readonly likertModes: boolean;
  /** Whether prompts draw few-shot examples from the dataset (`inspect` keeps every task then). */
  readonly fewShotPool: boolean;
  /** What the report counts. */
  readonly unit: 'tasks' | 'items';
  /** The metrics of a run of `n` samples per task. */
  plan(n: number): AnyPlan;
  /** The language a sample executes in when its work item names none. */
  languageOf(task: T): LanguageId | undefined;
  /** Every test's time limit summed, before any time scale (0 when nothing runs). */
  testTimeMs(task: T): number;
  /** Tests a sample is judged on (a harness failure counts them all). */
  testsTotal(task: T): number;
  /** When the run's settings score choices rather than generate text: how (absent: text). */
  choiceGeneration?(ctx: ScoringContext): ChoiceGeneration<T> | undefined;
  /** What a generated text answer carries to scoring beside it (likert: the digit to parse). */
  textEvidence?(answer: string): Pick<Generation, 'likert'>;
  /** Scores a generated sample (a failed generation never gets here). */
  score(ctx: ScoringContext, task: T, generated: Generation): Promise<ScoreOutcome>;
  /** Runs and judges a program on a host: code scorers, for the sandbox executor. */
  execute?(job: ExecutionJob<T>, host: ProgramHost, options: ExecuteOptions): Promise<ScoreOutcome>;
  /** The record's `answer` (default: the generated answer). */
  recordAnswer?(generated: Generation, outcome: ScoreOutcome): string;
  /** The task's facts a person reading one of its samples needs. */
  viewFields(task: T): readonly ViewField[];
  /** What `polyeval inspect` prints about the task's scoring material. */
  inspect(task: T, benchmark: AnyBenchmark): Record<string, unknown>;
  /** The report's charts for a run. */
  charts(records: readonly RunRecord[]): string;
}
