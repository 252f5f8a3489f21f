/**
 * Hugging Face TGI's payload for SageMaker InvokeEndpoint (`inputs` + `parameters`), its
 * answer (an array of one `{generated_text, details}`, or the object itself), and choice
 * scoring from the prefill log-probabilities that `decoder_input_details` returns.
 */
import { z } from 'zod';
import type { GenerationParams } from '#core/models/index.ts';
import { malformed } from './failures.ts';
import { expectShape } from './openai-wire.ts';
import type { PromptToken } from './logprobs.ts';
import { NEXT_TOKEN_POSITIONS, type GeneratedPosition } from './next-token.ts';

const tokenSchema = z.object({ text: z.string(), logprob: z.number().nullable().optional() }).loose();

const generationSchema = z
  .object({
    generated_text: z.string(),
    details: z
      .object({
        finish_reason: z.string().nullish(),
        generated_tokens: z.number().nullish(),
        prefill: z.array(tokenSchema).nullish(),
        /** The generated tokens (router/src/lib.rs `Details.tokens`: id, text, logprob, special). */
        tokens: z.array(z.object({ text: z.string(), logprob: z.number() }).loose()).nullish(),
        /** Per generated token, its `top_n_tokens` alternatives (router/src/lib.rs `Details.top_tokens`). */
        top_tokens: z.array(z.array(z.object({ text: z.string(), logprob: z.number() }).loose())).nullish(),
      })
      .loose()
      .nullish(),
  })
  .loose();

export type TgiGeneration = z.infer<typeof generationSchema>;

/**
 * TGI rejects temperature 0 and top_p ≥ 1: greedy decoding is `do_sample: false` with
 * neither set. `details` brings the generated token count; `decoder_input_details` is left
 * off (it returns the whole prompt's prefill every time): prompt tokens are estimated.
 */
export function tgiGeneratePayload(inputs: string, params: GenerationParams, seed: number | undefined): unknown {
  const sampling = params.temperature > 0;
  return {
    inputs,
    parameters: {
      max_new_tokens: params.maxTokens,
      do_sample: sampling,
      ...(sampling ? { temperature: params.temperature } : {}),
      ...(sampling && params.topP > 0 && params.topP < 1 ? { top_p: params.topP } : {}),
      ...(params.stop.length > 0 ? { stop: params.stop } : {}),
      ...(seed !== undefined ? { seed } : {}),
      return_full_text: false,
      details: true,
    },
  };
}

/** Scores `context + choice` without sampling: one new token, prefill log-probabilities on. */
export function tgiScorePayload(inputs: string): unknown {
  return {
    inputs,
    parameters: { max_new_tokens: 1, do_sample: false, return_full_text: false, details: true, decoder_input_details: true },
  };
}

/** The one generation of a TGI answer. */
export function readTgi(body: unknown): TgiGeneration {
  const first = Array.isArray(body) ? body[0] : body;
  return expectShape(generationSchema, first, 'TGI answer');
}

/** The prefill (prompt) tokens of a TGI answer; their `logprob` is null for the first token. */
export function tgiPrefill(generation: TgiGeneration): PromptToken[] {
  const prefill = generation.details?.prefill;
  if (!prefill || prefill.length === 0) {
    throw malformed('TGI answer has no details.prefill (decoder_input_details unsupported?)');
  }
  return prefill.map((t) => ({ text: t.text, logprob: t.logprob ?? null }));
}

/**
 * The answer's first tokens with their top-k alternatives after `inputs` (next-token likert
 * mode): greedy, {@link NEXT_TOKEN_POSITIONS} new tokens, `top_n_tokens` — which TGI serves
 * whatever its launch flags, unlike prompt log-probabilities (off by default since TGI 3.0).
 * k is capped by `--max-top-n-tokens` (default 5).
 */
export function tgiTopTokensPayload(inputs: string, k: number): unknown {
  return { inputs, parameters: { max_new_tokens: NEXT_TOKEN_POSITIONS, do_sample: false, return_full_text: false, details: true, top_n_tokens: k } };
}

/**
 * The generated positions with their alternatives (`details.tokens` beside
 * `details.top_tokens`, router/src/lib.rs `Details`); undefined when the answer has none.
 */
export function tgiPositions(generation: TgiGeneration): GeneratedPosition[] | undefined {
  const tops = generation.details?.top_tokens;
  if (!tops || tops.length === 0 || (tops[0]?.length ?? 0) === 0) return undefined;
  const chosen = generation.details?.tokens ?? [];
  return tops.map((top, i) => {
    const alternatives = top.map((t) => ({ token: t.text, logprob: t.logprob }));
    const token = chosen[i] ?? alternatives[0] ?? { text: '', logprob: 0 };
    return { token: 'text' in token ? token.text : token.token, logprob: token.logprob, top: alternatives };
  });
}
