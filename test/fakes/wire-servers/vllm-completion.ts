/**
 * vLLM's `/v1/completions` answer, tokenized with a real model tokenizer. What it copies,
 * read from vllm-project/vllm:
 *
 * - `CompletionRequest.to_sampling_params` (vllm/entrypoints/openai/completion/protocol.py
 *   @d5dba2d): `echo` with `max_tokens == 0` is `echo_without_generation`; the engine is still
 *   asked for one token, and prompt log-probabilities are on whenever `echo` is (prompt_logprobs
 *   defaults to `logprobs`).
 * - `request_output_to_completion_response` (vllm/entrypoints/openai/completion/serving.py
 *   @cc139d8): with `echo` and `max_tokens == 0` the choice's `token_ids`/logprobs are the
 *   prompt's only and `text` is the prompt; with `max_tokens >= 1` the generated tokens follow
 *   the prompt's and `text` is prompt + generated text. Either way `num_generated_tokens +=
 *   len(output.token_ids)`: `usage.completion_tokens` counts the generated token that
 *   echo-without-generation never shows (1 per prompt), and `usage.prompt_tokens` is
 *   `len(prompt_token_ids)`, BOS included.
 * - `_create_completion_logprobs` (same file): a position without log-probabilities (the
 *   first prompt token) is spelled `tokenizer.decode(token_id)` with logprob null; the others
 *   by their Logprob's `decoded_token` (see `TokenStrings` for its two spellings); `text_offset`
 *   is a running sum of the token strings' lengths (Python `len`: code points) from
 *   `initial_text_offset`, which the non-streamed answer never passes, so it starts at 0 with
 *   or without `echo`; `top_logprobs` keeps the first `logprobs + 1` entries of the position's
 *   dict (`if num_output_top_logprobs >= i`), which the v1 engine fills with the token itself
 *   first and then the `logprobs` best alternatives, keyed by their strings (so a token that is
 *   also among the best appears once).
 * - Limits (vllm/v1/engine/input_processor.py @a179918 `_validate_logprobs`, engine/serving.py
 *   @619e4b3 `create_error_response`): `logprobs` above `--max-logprobs` (default 20) is a 400
 *   BadRequestError, param `logprobs`, "Requested sample logprobs of N, which is greater than max
 *   allowed: 20 (parameter=logprobs, value=N)" (vllm/exceptions.py @f984edf `__str__`); a
 *   `max_tokens` of 0 without `echo` reaches the engine as 0 and SamplingParams refuses it ("max_tokens
 *   must be at least 1, got 0."), also a 400.
 */
import { describeTokens, encodePrompt, encodeText, type RealToken, type TokenizerName, type TokenStrings } from './real-tokenizers.ts';
import type { LogprobFn } from './tokenize.ts';

export interface VllmCompletionInput {
  tokenizer: TokenizerName;
  strings: TokenStrings;
  prompt: string;
  /** The generated text (already cut at stops); only its first `max_tokens` tokens are kept. */
  answer: string;
  maxTokens: number;
  echo: boolean;
  logprobs: number | undefined;
  logprob: LogprobFn;
  /** Candidate next tokens (text) the alternatives in `top_logprobs` are drawn from. */
  candidates: readonly string[];
}

/** vLLM's `--max-logprobs` default (vllm/config/model.py `max_logprobs: int = 20`). */
export const VLLM_MAX_LOGPROBS = 20;

/** vLLM's 400 body for a request it refuses (engine/serving.py `create_error_response`). */
export function vllmBadRequest(message: string, param: string | null) {
  return { status: 400, headers: {}, body: { error: { message, type: 'BadRequestError', param, code: 400 } } };
}

/** The 400 vLLM answers a completion's `logprobs`/`max_tokens` with, or undefined when it takes them. */
export function vllmRefusal(body: Record<string, unknown>, maxLogprobs = VLLM_MAX_LOGPROBS): ReturnType<typeof vllmBadRequest> | undefined {
  const n = body.logprobs;
  if (typeof n === 'number' && n > maxLogprobs) {
    return vllmBadRequest(`Requested sample logprobs of ${n}, which is greater than max allowed: ${maxLogprobs} (parameter=logprobs, value=${n})`, 'logprobs');
  }
  if (body.max_tokens === 0 && body.echo !== true) return vllmBadRequest('max_tokens must be at least 1, got 0.', null);
  return undefined;
}

/** The body of a non-streamed completion (one prompt, n = 1). */
export function vllmCompletion(input: VllmCompletionInput): Record<string, unknown> {
  const promptTokens = describeTokens(input.tokenizer, encodePrompt(input.tokenizer, input.prompt), input.strings);
  // echo_without_generation: the engine generates one token anyway (to_sampling_params).
  const engineMax = input.echo && input.maxTokens === 0 ? 1 : input.maxTokens;
  const answerIds = encodeText(input.tokenizer, input.answer);
  const generatedIds = answerIds.slice(0, Math.max(1, engineMax));
  const generated = describeTokens(input.tokenizer, generatedIds, input.strings);
  const finish = answerIds.length > generatedIds.length ? 'length' : 'stop';
  const genText = generated.map((t) => t.text).join('');

  const scoredPrompt = scorePrompt(promptTokens, input.logprob);
  const promptText = promptTokens.map((t) => t.text).join('');
  const scoredGen = generated.map((t, i) => ({
    token: t,
    logprob: input.logprob(
      promptText +
        generated
          .slice(0, i)
          .map((g) => g.text)
          .join(''),
      t.text,
    ) as number | null,
  }));

  const echoWithoutGeneration = input.echo && input.maxTokens === 0;
  const shown = echoWithoutGeneration ? scoredPrompt : input.echo ? [...scoredPrompt, ...scoredGen] : scoredGen;
  const text = echoWithoutGeneration ? input.prompt : input.echo ? input.prompt + genText : genText;
  return {
    id: 'cmpl-fake',
    object: 'text_completion',
    created: 1_700_000_000,
    choices: [{ index: 0, text, logprobs: input.logprobs === undefined ? null : legacyLogprobs(input, shown), finish_reason: finish, stop_reason: null }],
    usage: { prompt_tokens: promptTokens.length, completion_tokens: generatedIds.length, total_tokens: promptTokens.length + generatedIds.length },
  };
}

interface Scored {
  token: RealToken;
  logprob: number | null;
}

/** Prompt log-probabilities: none for the first token; each later one scored after the text before it. */
function scorePrompt(tokens: readonly RealToken[], logprob: LogprobFn): Scored[] {
  let context = '';
  return tokens.map((token, i) => {
    const out = { token, logprob: i === 0 ? null : logprob(context, token.text) };
    context += token.text;
    return out;
  });
}

function legacyLogprobs(input: VllmCompletionInput, shown: readonly Scored[]) {
  const { tokenizer } = input;
  const k = input.logprobs ?? 0;
  // A position without log-probabilities is spelled tokenizer.decode(token_id) whatever the version.
  const strings = shown.map((s) =>
    s.logprob === null && !s.token.reported.startsWith('token_id:')
      ? (describeTokens(tokenizer, [s.token.id], 'decoded')[0]?.reported ?? '')
      : s.token.reported,
  );
  // Non-streamed: _create_completion_logprobs gets no initial_text_offset, so offsets start at 0.
  const offsets: number[] = [];
  let offset = 0;
  for (const s of strings) {
    offsets.push(offset);
    offset += [...s].length;
  }
  let context = '';
  const top = shown.map((s, i) => {
    const here = context;
    context += s.token.text;
    if (s.logprob === null) return null;
    const entries: [string, number][] = [[strings[i] ?? '', s.logprob]];
    for (const alt of alternatives(input, here, k)) {
      if (entries.length > k) break;
      if (!entries.some(([t]) => t === alt.reported)) entries.push([alt.reported, alt.logprob]);
    }
    return Object.fromEntries(entries);
  });
  return {
    text_offset: offsets,
    token_logprobs: shown.map((s) => s.logprob),
    tokens: strings,
    top_logprobs: top,
  };
}

const spelled = new Map<string, { text: string; reported: string }[]>();

/** The candidates that are one token in this tokenizer, with the strings the server reports for them. */
function singleTokenCandidates(input: VllmCompletionInput): { text: string; reported: string }[] {
  const key = `${input.tokenizer}/${input.strings}/${input.candidates.join('\u0000')}`;
  let out = spelled.get(key);
  if (!out) {
    out = input.candidates
      .map((text) => ({ ids: encodeText(input.tokenizer, text), text }))
      .filter((c) => c.ids.length === 1)
      .map((c) => ({ text: c.text, reported: describeTokens(input.tokenizer, c.ids, input.strings)[0]?.reported ?? c.text }));
    spelled.set(key, out);
  }
  return out;
}

/** The `k` best single-token candidates after `context`, spelled as the server reports them. */
function alternatives(input: VllmCompletionInput, context: string, k: number): { reported: string; logprob: number }[] {
  if (k <= 0) return [];
  return singleTokenCandidates(input)
    .map((c) => ({ reported: c.reported, logprob: input.logprob(context, c.text) }))
    .sort((a, b) => b.logprob - a.logprob)
    .slice(0, k);
}
