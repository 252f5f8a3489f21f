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

/**
 * A chat model that answers every question with a leading space token, then the digit
 * `pick(context)` — as Mistral's v0.1–v0.3 instruct models do (Mistral's tokenization guide:
 * they "always" output a token that starts with a whitespace; `" 4"` is `▁` then `4` in their
 * vocabularies, which hold no `▁4`). At the answer's first position the space is nearly
 * certain and the no-space digits beside it are stray, the most likely of them a wrong one
 * (`decoy`); after the space, the preferred digit leads. Read at the first position only, every
 * item would be predicted as the decoy.
 *
 * @example
 * const model = leadingSpaceDigit((ctx) => (ctx.includes('libertà') ? '4' : '2'));
 * model('Risposta:\n\n', ' '); // -0.05
 * model('Risposta:\n\n ', '4'); // -0.1 after "libertà"
 */
export function leadingSpaceDigit(pick: (context: string) => string): LogprobFn {
  return (context, token) => {
    const digit = pick(context);
    if (!context.endsWith(' ')) {
      if (token === ' ') return -0.05;
      // The stray digit: a wrong one, ahead of the right one.
      const decoy = String((Number(digit) % 5) + 1);
      return token === decoy ? -3.2 : token === digit ? -4.5 : -6;
    }
    return token === digit ? -0.1 : /^\d$/.test(token) ? -3 : -6;
  };
}
