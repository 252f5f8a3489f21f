/**
 * What core knows about a language (DESIGN §3): the names datasets and fences use for it,
 * how its code starts, how an MXEval completion in it is cleaned, how its declared names
 * are found (code-switching), which executor image runs it, and which of a run's settings
 * reach its toolchain. Pure data and pure functions; the runtime that compiles and runs it
 * lives in layers/sandbox/languages/<id>.ts, its image is a stage of layers/images/Dockerfile.
 */
import type { Declared } from './identifiers.ts';

/** Toolchain options one execution job carries to its language's runtime (never process-wide). */
export interface ToolchainOptions {
  /** The language version a dataset is written against (Kotlin: `-language-version`/`-api-version`). */
  readonly languageVersion?: string;
}

/** The run settings a spec may turn into toolchain options (the manifest's own fields). */
export interface RunToolchainSettings {
  readonly kotlin_language_version?: string | null;
}

/** One language's core spec. */
export interface LanguageSpec {
  /** The language id (`UnitTestsTask.language`, `RunRecord.language`). */
  readonly id: string;
  /** Spellings datasets use for it, lower-case without spaces (`normaliseLanguage`). */
  readonly aliases: readonly string[];
  /** Further spellings, as a pattern over the lower-case name (`c++17`, `python3.11`). */
  readonly aliasPattern?: RegExp;
  /** Markdown fence info strings that mark a block as this language (lower-case). */
  readonly fenceTags: readonly string[];
  /** Lines that begin code: never dropped as prose around an unfenced answer. */
  readonly codeStart: RegExp;
  /** MXEval task-id prefixes of its sets (`MBJP`, `HumanEval_java`). */
  readonly mxevalPrefixes: readonly string[];
  /** Stop sequences of an MXEval completion (cut at the first, keeping it). */
  readonly stops: readonly string[];
  /**
   * The completion that follows `prompt`, from code already out of its fence and cut at a
   * stop: a repeated signature dropped, the prompt's open blocks closed, the rest cut.
   */
  cleanCompletion(code: string, task: { prompt: string; entryPoint: string }): string;
  /** Declared function and variable names of a program, keywords and mandated names included (code-switching filters them). */
  declarations(code: string): Declared[];
  /** Words of the language that are never an author's identifier. */
  readonly keywords: ReadonlySet<string>;
  /**
   * The executor image (its stage in layers/images/Dockerfile) that runs it in the cloud, the memory
   * of that image's runner Lambda (where programs compile and run), and how many samples of one task
   * share a runner invocation on average (the judge's batches within the request's size and time
   * budgets, layers/app/cloud/runner-handoff.ts combineHandoffs; measured in the cloud simulation;
   * absent: one each, the most invocations). The dry run's estimate counts runner records with it.
   */
  readonly executor: { readonly image: string; readonly memoryMb: number; readonly samplesPerRunnerInvocation?: number };
  /** The options a run's settings give its toolchain (absent: none). */
  toolchainOptions?(settings: RunToolchainSettings): ToolchainOptions;
}

/**
 * Brace-at-column-0 stops, as the Kotlin recipe has them: `}\n}` holds the closing braces
 * of a nested block, `\n}\n` a block whose last statement is not one.
 */
export const BRACE_STOPS: readonly string[] = ['}\n}', '\n}\n'];
