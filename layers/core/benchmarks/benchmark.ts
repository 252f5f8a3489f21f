/**
 * A benchmark adapter: how rows become tasks, how a prompt is built, how an answer is
 * cleaned and which scorer judges it (DESIGN §1, §6) — and, through
 * {@link BenchmarkDescription}, its headline metric, published dataset, bundled suites and
 * metrics of its own. One file per benchmark holds all of it.
 *
 * @example
 * const tasks = rows.flatMap((r) => abricot.parseRow(r.row, { file: r.file, line: r.line }));
 * const prompt = abricot.buildPrompt(tasks[0], { pool: tasks, language: undefined });
 */
import type { GenerationParams, LikertMode, Prompt } from '../models/index.ts';
import type { LanguageId, ScorerKind, Task } from '../types.ts';
import type { BenchmarkDescription } from './description.ts';
import type { ProtocolBound } from './protocol.ts';

export interface RowLocation {
  file: string;
  line: number;
}

/**
 * How dataset columns map onto one task field: the aliases `parseRow` reads, first present
 * wins. Shown by `polyeval inspect`.
 */
export interface FieldMapping {
  field: string;
  columns: readonly string[];
  required: boolean;
  /** What happens when no column is present, or how the value is read. */
  note?: string;
}

export interface PromptContext<T extends Task> {
  /** Every task of the run's dataset (few-shot examples are drawn from it). */
  pool: readonly T[];
  /** Requested language for code benchmarks. */
  language?: LanguageId;
}

export interface Benchmark<T extends Task = Task> extends ProtocolBound<Benchmark<T>>, BenchmarkDescription<T> {
  readonly id: string;
  readonly scorer: ScorerKind;
  readonly title: string;
  /** The columns each task field is read from (the same alias lists `parseRow` uses). */
  readonly fields: readonly FieldMapping[];
  /** Turns one raw dataset row into zero or more tasks; throws InputError naming file, line, field. */
  parseRow(row: Record<string, unknown>, loc: RowLocation): T[];
  /** Generation defaults of the benchmark's published recipe. */
  readonly defaults: {
    params: Partial<GenerationParams>;
    /** Samples per task for providers that sample (the protocol's n; default 1). */
    n?: number;
    language?: LanguageId;
    languages?: LanguageId[];
    /** kotlinc -language-version/-api-version for datasets written against older Kotlin APIs. */
    kotlinLanguageVersion?: string;
  };
  buildPrompt(task: T, ctx: PromptContext<T>): Prompt;
  /**
   * The task's canonical answer in the given language (feeds the `reference` provider); a
   * task with several reference answers gives answer `sample mod count` for sample `sample`.
   */
  reference(task: T, language?: LanguageId, sample?: number): string | undefined;
  /** How many reference answers the task has (default 1 when `reference` gives one). */
  referenceCount?(task: T, language?: LanguageId): number;
  /** Benchmark-specific cleaning of a raw model answer. */
  postprocess(raw: string, task: T, language?: LanguageId): string;
  /** Language a sample of this task is executed in. */
  languageOf(task: T, requested?: LanguageId): LanguageId | undefined;
  /** likert only: the answer choices scored by log-likelihood. */
  readonly choices?: readonly string[];
  /** likert only: what joins the prompt's text and a scored choice (default " ", lm-eval's target delimiter). */
  readonly choiceDelimiter?: string;
  /**
   * What the manifest must say about how the prompt reached the model (e.g. which chat
   * template shaped it, or that none did), given the likert mode the run uses (null otherwise).
   */
  promptNotes?(mode: LikertMode | null): string[];
}

/** Narrowing helper for registries holding benchmarks of several task kinds. */
export type AnyBenchmark = Benchmark<Task>;
