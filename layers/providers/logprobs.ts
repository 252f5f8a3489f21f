/**
 * Choice log-likelihoods from prompt-token log-probabilities. The prompt sent is
 * `context + choice`; log P(choice | context) is the sum of the log-probabilities of the
 * tokens that cover the choice's characters. A token straddling the boundary (" 3" after
 * "Risposta:") counts whole: tokenisers merge the space into the choice's token.
 */
import { malformed } from './failures.ts';

/** One prompt token as the server reports it; `logprob` is null for the first token. */
export interface PromptToken {
  text: string;
  logprob: number | null;
  /** Character offset of the token in the prompt, when the server reports it. */
  offset?: number;
}

/**
 * Sums the log-probabilities of the tokens overlapping characters [start, end) of the text,
 * using the server's character offsets (OpenAI `text_offset`).
 */
export function sumCovering(tokens: readonly PromptToken[], start: number, end: number): number {
  let sum = 0;
  let covered = 0;
  for (const token of tokens) {
    if (token.offset === undefined) throw malformed('token without text offset');
    const tokenEnd = token.offset + charLength(token.text);
    if (token.text.length === 0 || token.offset >= end || tokenEnd <= start) continue;
    sum += requireLogprob(token);
    covered += 1;
  }
  if (covered === 0) throw malformed(`no token covers characters ${start}..${end} of the echoed prompt`);
  return sum;
}

/**
 * Sums the log-probabilities of the last tokens, walking back until their text covers
 * `chars` characters: for servers that report decoded tokens without offsets (TGI prefill,
 * vLLM prompt_logprobs). Empty tokens at the end (special tokens) are skipped.
 */
export function sumTail(tokens: readonly PromptToken[], chars: number): number {
  if (chars <= 0) throw malformed('empty choice');
  let sum = 0;
  let covered = 0;
  for (let i = tokens.length - 1; i >= 0 && covered < chars; i--) {
    const token = tokens[i] as PromptToken;
    if (token.text.length === 0) continue;
    sum += requireLogprob(token);
    covered += charLength(token.text);
  }
  if (covered < chars) throw malformed(`prompt tokens cover ${covered} characters, the choice has ${chars}`);
  return sum;
}

/**
 * Offsets for tokens reported without them, by accumulating their text lengths; only valid
 * when the tokens' texts concatenate to the prompt exactly.
 */
export function withCumulativeOffsets(tokens: readonly PromptToken[]): PromptToken[] {
  let offset = 0;
  return tokens.map((t) => {
    const withOffset = { ...t, offset };
    offset += charLength(t.text);
    return withOffset;
  });
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
    throw malformed(`token ${JSON.stringify(token.text)} of the choice has no log-probability`);
  }
  return token.logprob;
}
