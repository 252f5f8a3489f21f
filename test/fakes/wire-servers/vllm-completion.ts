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
 *   is a running sum of the token strings' lengths (Python `len`: code points) from 0;
 *   `top_logprobs` holds up to `logprobs + 1` entries (here the token itself).
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
  const scoredGen = generated.map((t, i) => ({ token: t, logprob: input.logprob(promptText + generated.slice(0, i).map((g) => g.text).join(''), t.text) as number | null }));

  const echoWithoutGeneration = input.echo && input.maxTokens === 0;
  const shown = echoWithoutGeneration ? scoredPrompt : input.echo ? [...scoredPrompt, ...scoredGen] : scoredGen;
  const text = echoWithoutGeneration ? input.prompt : input.echo ? input.prompt + genText : genText;
  return {
    id: 'cmpl-fake',
    object: 'text_completion',
    created: 1_700_000_000,
    choices: [{ index: 0, text, logprobs: input.logprobs === undefined ? null : legacyLogprobs(input.tokenizer, shown, input.echo ? 0 : [...input.prompt].length), finish_reason: finish, stop_reason: null }],
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

function legacyLogprobs(tokenizer: TokenizerName, shown: readonly Scored[], initialOffset: number) {
  // A position without log-probabilities is spelled tokenizer.decode(token_id) whatever the version.
  const strings = shown.map((s) => (s.logprob === null && !s.token.reported.startsWith('token_id:') ? describeTokens(tokenizer, [s.token.id], 'decoded')[0]?.reported ?? '' : s.token.reported));
  const offsets: number[] = [];
  let offset = initialOffset;
  for (const s of strings) {
    offsets.push(offset);
    offset += [...s].length;
  }
  return {
    text_offset: offsets,
    token_logprobs: shown.map((s) => s.logprob),
    tokens: strings,
    top_logprobs: shown.map((s, i) => (s.logprob === null ? null : { [strings[i] ?? '']: s.logprob })),
  };
}
