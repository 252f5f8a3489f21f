/**
 * The Kotlin HumanEval (MXEval) completion recipe from the benchmark card: the prompt is the
 * row's `prompt` as-is (KDoc + signature ending in `{\n`), decoding is greedy, generation
 * stops when a brace closes at column 0, and at most 256 new tokens are drawn.
 */
import { BRACE_STOPS } from '../languages/index.ts';

/**
 * Stop sequences: the brace stops the Kotlin language spec declares (`BRACE_STOPS`). The card's
 * prose says `}\n}`, its code matches `\n}\n`; both mean "a brace at column 0 closed the
 * function". A function whose last statement is not a block (`return x\n}`) only ever
 * produces the second one, so both are listed: without it a completion model runs on past the
 * function (often into its own `main`, which then clashes with the test's). `truncateAtStop`
 * keeps the stop text, so the closing brace survives.
 */
export const KOTLIN_STOP_SEQUENCES: readonly string[] = BRACE_STOPS;

/** The card's `max_new_tokens`. */
export const KOTLIN_MAX_TOKENS = 256;

/** Greedy decoding, as the card's `do_sample=False, num_beams=1`. */
export const KOTLIN_RECIPE = {
  temperature: 0,
  topP: 1,
  maxTokens: KOTLIN_MAX_TOKENS,
  stop: KOTLIN_STOP_SEQUENCES,
  n: 1,
} as const;

/**
 * The card's post-processing as its code runs it (`clean_asnwer` in the Kotlin_HumanEval card's
 * example script, JetBrains/Kotlin_HumanEval README): the generated text there is the decoded
 * whole sequence, prompt included; the function returns the lines after the first line that
 * starts with `fun ` (column 0), or the text unchanged when no line does. Its comment removal
 * computes a cleaned string but then splits the original one, so comments stay. Here the
 * completion is appended to the row's prompt first, to give the same text.
 *
 * @example
 * cardCompletion('/** KDoc *\/\nfun f(): Int {\n', '    return 1\n}\n'); // '    return 1\n}\n'
 */
export function cardCompletion(prompt: string, completion: string): string {
  const text = `${prompt}${completion}`;
  const lines = text.split('\n');
  const signature = lines.findIndex((line) => line.startsWith('fun '));
  return signature < 0 ? text : lines.slice(signature + 1).join('\n');
}
