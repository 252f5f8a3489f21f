/**
 * What core knows about a language (issue 14, item 2, started here for Java and JavaScript):
 * the names datasets and fences use for it, how its code starts, and how an MXEval
 * completion in it is cleaned. Pure data and pure functions; the runtime that compiles and
 * runs it lives in layers/sandbox/languages/.
 */

/** One language's core spec. */
export interface LanguageSpec {
  /** The language id (`UnitTestsTask.language`, `RunRecord.language`). */
  readonly id: string;
  /** Spellings datasets use for it, lower-case without spaces (`normaliseLanguage`). */
  readonly aliases: readonly string[];
  /** Markdown fence info strings that mark a block as this language (lower-case). */
  readonly fenceTags: readonly string[];
  /** Lines that begin code: never dropped as prose around an unfenced answer. */
  readonly codeStart: RegExp;
  /** MXEval task-id prefixes of its sets (`MBJP`, `HumanEval_java`). */
  readonly mxevalPrefixes: readonly string[];
  /** Stop sequences of a completion: a brace at column 0 closed what the prompt opened. */
  readonly stops: readonly string[];
  /**
   * The completion that follows `prompt`, from code already out of its fence and cut at a
   * stop: a repeated signature dropped, the prompt's open blocks closed, the rest cut.
   */
  cleanCompletion(code: string, task: { prompt: string; entryPoint: string }): string;
}

/**
 * Brace-at-column-0 stops, as the Kotlin recipe has them: `}\n}` holds the closing braces
 * of a nested block, `\n}\n` a block whose last statement is not one.
 */
export const BRACE_STOPS: readonly string[] = ['}\n}', '\n}\n'];
