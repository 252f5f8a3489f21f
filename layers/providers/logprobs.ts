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

/** Where a choice was found among the prompt tokens, and its log-probability. */
export interface LocatedChoice {
  logprob: number;
  /** `bytes`: the tokens spell the prompt's tail exactly; `offsets`: located by the server's text offsets only (not trusted by the capability check). */
  by: 'bytes' | 'offsets';
  /** The token strings summed, first to last. */
  tokens: string[];
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
  return locateChoice(tokens, context, choice).logprob;
}

/** {@link choiceLogprob} with how the choice was located and the tokens that cover it. */
export function locateChoice(tokens: readonly PromptToken[], context: string, choice: string): LocatedChoice {
  if (choice.length === 0) throw deterministic('empty choice');
  const prompt = utf8(context + choice);
  const byTail = coverTail(tokens, prompt, prompt.length - utf8(choice).length, tokens.length - 1, prompt.length);
  if (byTail !== undefined) return { logprob: byTail.sum, by: 'bytes', tokens: byTail.used };
  if (tokens.some((t) => t.offset !== undefined)) {
    const shifted = shiftPastSpecials(tokens);
    const start = charLength(context);
    const end = charLength(context + choice);
    const used = shifted
      .filter((t) => t.offset !== undefined && t.text.length > 0 && t.offset < end && t.offset + charLength(t.text) > start)
      .map((t) => t.text);
    return { logprob: sumCovering(shifted, start, end), by: 'offsets', tokens: used };
  }
  throw deterministic(`cannot locate the choice ${JSON.stringify(choice)} among the ${tokens.length} prompt tokens the server returned`);
}

const SPACE = 0x20;

/**
 * Walks back from token `i`, whose text must end at byte `pos` of the prompt, until the
 * choice's bytes (from `choiceStart`) are covered. A token is matched as spelled, or as
 * spelled with one leading space put back: decoding a single SentencePiece token strips the
 * space its `▁` stands for (`▁4` → "4", a lone `▁` → ""), which is how vLLM spells prompt
 * tokens from vllm@092baf6 on (`convert_ids_list_to_tokens` decodes one id at a time). The
 * first reading that covers the choice wins; the search backtracks over the few tokens a
 * choice spans.
 */
function coverTail(
  tokens: readonly PromptToken[],
  prompt: Uint8Array,
  choiceStart: number,
  i: number,
  pos: number,
): { sum: number; used: string[] } | undefined {
  if (i < 0) return undefined;
  const token = tokens[i] as PromptToken;
  const bytes = tokenBytes(token.text);
  if (bytes === null) return coverTail(tokens, prompt, choiceStart, i - 1, pos);
  const readings = bytes.length === 0 ? [0, 1] : [bytes.length, bytes.length + 1];
  for (const width of readings) {
    // width 0: a token standing for no text here (a decoded special token); skipped.
    if (width === 0) {
      const rest = coverTail(tokens, prompt, choiceStart, i - 1, pos);
      if (rest) return rest;
      continue;
    }
    const lostSpace = width > bytes.length;
    if (!endsWith(prompt, bytes, pos) || (lostSpace && prompt[pos - width] !== SPACE) || width > pos) continue;
    const next = pos - width;
    const logprob = requireLogprob(token);
    if (next <= choiceStart) return { sum: logprob, used: [token.text] };
    const rest = coverTail(tokens, prompt, choiceStart, i - 1, next);
    if (rest) return { sum: rest.sum + logprob, used: [...rest.used, token.text] };
  }
  // A token spanning the boundary: its tail is the rest of the choice, its head lies in the
  // context (which, behind a chat template, may not be the text we know).
  const need = pos - choiceStart;
  if (need > 0 && bytes.length > need && endsWith(bytes, prompt.subarray(choiceStart, pos), bytes.length))
    return { sum: requireLogprob(token), used: [token.text] };
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
