/**
 * Choice log-likelihoods from prompt-token log-probabilities. The prompt sent is
 * `context + choice`; log P(choice | context) is the sum of the log-probabilities of the
 * tokens that cover the choice's bytes. A token straddling the boundary (":▁3") counts
 * whole: every choice's straddling token differs, so it is part of what tells them apart.
 *
 * The tokens are located by their bytes, walking back from the end of the prompt, not by
 * the server's `text_offset`: vLLM echoes the BOS token (`<|begin_of_text|>`, `<s>`) and
 * builds `text_offset` as a running sum of token-string lengths, so with a BOS every offset
 * is shifted by its length, and byte-level token strings (`Ġ3`) are not the text they
 * stand for. Offsets are the fallback only when the tail does not decode.
 */
import { deterministic } from './failures.ts';
import { isSpecialToken, tokenBytes, utf8 } from './token-bytes.ts';

/** One prompt token as the server reports it; `logprob` is null for the first token. */
export interface PromptToken {
  text: string;
  logprob: number | null;
  /** Character offset of the token in the prompt, when the server reports it (not trusted alone). */
  offset?: number;
}

/**
 * log P(choice | context) from the tokens of the prompt `context + choice` — exactly the
 * prompt's tokens (generated tokens already removed), special tokens included or not.
 *
 * @example
 * choiceLogprob([{ text: '<s>', logprob: null }, { text: 'Risposta:', logprob: -2 }, { text: '▁3', logprob: -0.4 }], 'Risposta:', ' 3'); // -0.4
 * @throws ProviderCallError (not retryable) when no run of tokens covers the choice.
 */
export function choiceLogprob(tokens: readonly PromptToken[], context: string, choice: string): number {
  if (choice.length === 0) throw deterministic('empty choice');
  const byTail = sumFromTail(tokens, utf8(context + choice), utf8(choice).length);
  if (byTail !== undefined) return byTail;
  if (tokens.some((t) => t.offset !== undefined)) return sumCovering(shiftPastSpecials(tokens), charLength(context), charLength(context + choice));
  throw deterministic(`cannot locate the choice ${JSON.stringify(choice)} among the ${tokens.length} prompt tokens the server returned`);
}

/** Walks back from the last token matching bytes against the end of the prompt until the choice's bytes are covered. */
function sumFromTail(tokens: readonly PromptToken[], prompt: Uint8Array, choiceBytes: number): number | undefined {
  const choiceStart = prompt.length - choiceBytes;
  let pos = prompt.length;
  let sum = 0;
  for (let i = tokens.length - 1; i >= 0; i--) {
    const token = tokens[i] as PromptToken;
    const bytes = tokenBytes(token.text);
    if (bytes === null || bytes.length === 0) continue;
    if (!endsWith(prompt, bytes, pos)) {
      // A token spanning the boundary: its tail is the rest of the choice, its head lies in
      // the context (which, behind a chat template, may not be the text we know).
      const need = pos - choiceStart;
      return need > 0 && bytes.length > need && endsWith(bytes, prompt.subarray(choiceStart, pos), bytes.length) ? sum + requireLogprob(token) : undefined;
    }
    pos -= bytes.length;
    sum += requireLogprob(token);
    if (pos <= choiceStart) return sum;
  }
  return undefined;
}

function endsWith(haystack: Uint8Array, needle: Uint8Array, end: number): boolean {
  if (needle.length > end) return false;
  for (let i = 0; i < needle.length; i++) if (haystack[end - needle.length + i] !== needle[i]) return false;
  return true;
}

/** Offsets with the shift of leading special tokens (vLLM counts the BOS string's length) taken out. */
function shiftPastSpecials(tokens: readonly PromptToken[]): PromptToken[] {
  let shift = 0;
  for (const t of tokens) {
    if (!isSpecialToken(t.text)) break;
    shift += charLength(t.text);
  }
  return tokens.filter((t) => !isSpecialToken(t.text)).map((t) => ({ ...t, ...(t.offset !== undefined ? { offset: t.offset - shift } : {}) }));
}

/**
 * Sums the log-probabilities of the tokens overlapping characters [start, end) of the text,
 * using the server's character offsets (OpenAI `text_offset`).
 */
export function sumCovering(tokens: readonly PromptToken[], start: number, end: number): number {
  let sum = 0;
  let covered = 0;
  for (const token of tokens) {
    if (token.offset === undefined) throw deterministic('token without text offset');
    const tokenEnd = token.offset + charLength(token.text);
    if (token.text.length === 0 || token.offset >= end || tokenEnd <= start) continue;
    sum += requireLogprob(token);
    covered += 1;
  }
  if (covered === 0) throw deterministic(`no token covers characters ${start}..${end} of the echoed prompt`);
  return sum;
}

/**
 * Length in Unicode code points: servers written in Python report offsets in code points,
 * while a JavaScript string's length counts UTF-16 units.
 */
export function charLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function requireLogprob(token: PromptToken): number {
  if (typeof token.logprob !== 'number' || Number.isNaN(token.logprob)) {
    throw deterministic(`token ${JSON.stringify(token.text)} of the choice has no log-probability`);
  }
  return token.logprob;
}
