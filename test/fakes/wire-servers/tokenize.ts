/**
 * The fake servers' tokeniser and language model: whitespace runs, single digits, letter
 * runs and single other characters are tokens, so the tokens concatenate to the text
 * exactly. Each token's log-probability comes from a callback given the text before it,
 * which lets a test make a model that favours, say, the digit "4" after a given prompt.
 */

/** log P(token | context); `context` is all the text before the token. */
export type LogprobFn = (context: string, token: string) => number;

/** Every token costs -1 nat unless the test says otherwise. */
export const flatLogprob: LogprobFn = () => -1;

const TOKEN = /\s+|\d|[\p{L}\p{M}]+|[^\s\d\p{L}\p{M}]/gsu;

/** Splits text into tokens that concatenate back to it. */
export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** A scored token; the first token of a text has no log-probability (nothing precedes it). */
export interface ScoredToken {
  text: string;
  /** Offset in code points, as Python servers report it. */
  offset: number;
  logprob: number | null;
}

/** Tokenises and scores a text with `logprob`. */
export function scoreText(text: string, logprob: LogprobFn): ScoredToken[] {
  const out: ScoredToken[] = [];
  let context = '';
  let offset = 0;
  for (const token of tokenize(text)) {
    out.push({ text: token, offset, logprob: out.length === 0 ? null : logprob(context, token) });
    context += token;
    offset += [...token].length;
  }
  return out;
}

/** A stable fake token id. */
export function tokenId(token: string): number {
  let h = 0;
  for (const ch of token) h = (h * 31 + (ch.codePointAt(0) ?? 0)) % 50_000;
  return h;
}

/**
 * A language model that, after any context, gives the digit `pick(context)` log-probability
 * `favoured` and every other token `other` — e.g. for an ABRICOT run in likelihood mode:
 * `startOpenAiServer({ logprob: favourDigit((ctx) => (ctx.includes('libertà') ? '4' : '2')) })`.
 */
export function favourDigit(pick: (context: string) => string, favoured = -0.1, other = -4): LogprobFn {
  return (context, token) => (token === pick(context) ? favoured : other);
}
