/**
 * The OpenAI chat/completions and completions wire formats, as served by vLLM, TGI's
 * Messages API, Ollama and llama.cpp: request builders and response schemas. Shared by the
 * `openai:` provider and SageMaker's `#openai` payload flavour.
 */
import { z } from 'zod';
import type { GenerationParams, Prompt } from '#core/models/index.ts';
import type { TokenUsage } from '#core/types.ts';
import { malformed } from './failures.ts';
import type { PromptToken } from './logprobs.ts';
import { NEXT_TOKEN_POSITIONS, type GeneratedPosition } from './next-token.ts';
import { promptText } from './prompt-text.ts';
import { estimateTokens } from './tokens.ts';

const usageSchema = z.object({ prompt_tokens: z.number(), completion_tokens: z.number().optional(), total_tokens: z.number().optional() }).loose();

/**
 * An answer's `message.content`: a string, or — Mistral's reasoning models (Magistral; Mistral
 * Small 4 with `reasoning_effort`) — a list of chunks, a `thinking` chunk (the model's trace)
 * then `text` chunks (the answer): mistralai/client-python @05629d2 (v2.5.1)
 * docs/models/assistantmessagecontent.md (`str` or `List[ContentChunk]`), thinkchunk.md
 * (`type: "thinking"`, `thinking: [TextChunk…]`), textchunk.md (`type: "text"`, `text`);
 * docs.mistral.ai "Reasoning". Read as the answer's text: the text chunks joined, the
 * thinking left out (its tokens are billed through `usage` all the same).
 */
const contentSchema = z
  .union([z.string(), z.array(z.object({ type: z.string().optional(), text: z.string().optional() }).loose())])
  .nullish()
  .transform((content) =>
    Array.isArray(content) ? content.map((chunk) => (chunk.type === 'text' || chunk.type === undefined ? (chunk.text ?? '') : '')).join('') : content,
  );

export const chatResponseSchema = z
  .object({
    choices: z
      .array(
        z
          .object({
            // null on a refusal or a tool call: a deterministic answer, not a malformed body.
            message: z.object({ content: contentSchema, refusal: z.string().nullish() }).loose(),
            finish_reason: z.string().nullish(),
            /** Chat log-probabilities (OpenAI, vLLM, llama.cpp, TGI): one entry per generated token. */
            logprobs: z
              .object({
                content: z
                  .array(
                    z
                      .object({
                        token: z.string(),
                        logprob: z.number(),
                        top_logprobs: z.array(z.object({ token: z.string(), logprob: z.number() }).loose()).nullish(),
                      })
                      .loose(),
                  )
                  .nullish(),
              })
              .loose()
              .nullish(),
          })
          .loose(),
      )
      .min(1),
    usage: usageSchema.nullish(),
    /** vLLM only, when the request asked for `prompt_logprobs`: one entry per prompt token, null first. */
    prompt_logprobs: z
      .array(z.record(z.string(), z.object({ logprob: z.number().nullable(), decoded_token: z.string().nullish() }).loose()).nullable())
      .nullish(),
  })
  .loose();

export const completionResponseSchema = z
  .object({
    choices: z
      .array(
        z
          .object({
            text: z.string(),
            finish_reason: z.string().nullish(),
            // The legacy OpenAI shape (vLLM); llama.cpp answers `{content: [...]}` for generated
            // tokens only and TGI a bare array or null: neither is prompt log-probabilities.
            logprobs: z.unknown().optional(),
          })
          .loose(),
      )
      .min(1),
    usage: usageSchema.nullish(),
  })
  .loose();

export type ChatResponse = z.infer<typeof chatResponseSchema>;
export type CompletionResponse = z.infer<typeof completionResponseSchema>;

/** Validates a parsed body against a schema; a mismatch is a retryable malformed response. */
export function expectShape<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw malformed(`${what}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unexpected shape'}`);
  }
  return parsed.data;
}

/** Chat messages with the system prompt first. */
export function chatMessages(prompt: Prompt): { role: string; content: string }[] {
  const messages = prompt.system ? [{ role: 'system', content: prompt.system }] : [];
  return [...messages, ...prompt.messages.map((m) => ({ role: m.role, content: m.content }))];
}

/**
 * What a chat-only endpoint gets for any prompt: its chat messages (a benchmark's chat form
 * of a completion prompt, e.g. MXEval's instruction), or — a completion prompt with no chat
 * form — the completion text as one user message.
 */
export function chatOnlyMessages(prompt: Prompt): { role: string; content: string }[] {
  return prompt.messages.length > 0 ? chatMessages(prompt) : [{ role: 'user', content: promptText(prompt) }];
}

/**
 * The sampling fields common to both endpoints; `stop` only when there is one (some servers
 * reject []); `top_p` only when it restricts anything: 1 is every server's default, and TGI's
 * OpenAI routes reject it (router/src/validation.rs: "`top_p` must be > 0.0 and < 1.0", 422).
 */
export function samplingFields(
  params: GenerationParams,
  seed: number | undefined,
  adapted: { omitSampling?: boolean; maxTokensField?: 'max_tokens' | 'max_completion_tokens' } = {},
): Record<string, unknown> {
  return {
    [adapted.maxTokensField ?? 'max_tokens']: params.maxTokens,
    ...(adapted.omitSampling ? {} : { temperature: params.temperature }),
    ...(params.topP < 1 && !adapted.omitSampling ? { top_p: params.topP } : {}),
    ...(params.stop.length > 0 ? { stop: params.stop } : {}),
    ...(seed !== undefined ? { seed } : {}),
  };
}

/** Usage from the response, or the chars/4 estimate for servers that omit it. */
export function usageOf(
  usage: { prompt_tokens: number; completion_tokens?: number | undefined; total_tokens?: number | undefined } | null | undefined,
  promptText: string,
  completion: string,
): TokenUsage {
  const completionTokens = usage?.completion_tokens ?? estimateTokens(completion);
  // Billed output includes thinking. An OpenAI-shaped Gemini answer may leave the thoughts out
  // of completion_tokens yet count them in total_tokens (the native API reports
  // thoughtsTokenCount apart; OpenAI-shape translators differ: router-for-me/CLIProxyAPI#5733,
  // mozilla-ai/any-llm#1290), so the larger of the two readings is billed.
  const fromTotal = usage?.total_tokens !== undefined ? usage.total_tokens - usage.prompt_tokens : 0;
  return {
    promptTokens: usage?.prompt_tokens ?? estimateTokens(promptText),
    completionTokens: Math.max(completionTokens, fromTotal),
  };
}

/**
 * A chat-completions answer as a Generation (shared by `openai:` and `sagemaker:…#openai`).
 * `content: null` (a refusal, a tool call) is the model's deterministic answer: an empty
 * text with the reason in `refusal`, billed and never retried.
 */
export function generationFromChat(
  out: { value: ChatResponse; latencyMs: number; attempts: number; billed?: TokenUsage },
  promptText: string,
): { text: string; usage: TokenUsage; latencyMs: number; attempts: number; finishReason?: string; refusal?: string } {
  const choice = out.value.choices[0];
  const content = choice?.message.content;
  const text = content ?? '';
  const usage = usageOf(out.value.usage, promptText, text);
  const refusal =
    // Azure's content filter (Microsoft Learn, "Content filtering"): the answer was cut or withheld.
    choice?.finish_reason === 'content_filter'
      ? `the answer was filtered${content === null || content === undefined ? ': no content' : ''} (finish_reason "content_filter")`
      : content === null || content === undefined
        ? `the model returned no content (finish_reason ${JSON.stringify(choice?.finish_reason ?? null)}${choice?.message.refusal ? `, refusal: ${choice.message.refusal.slice(0, 200)}` : ''})`
        : undefined;
  return {
    text,
    usage: out.billed
      ? { promptTokens: usage.promptTokens + out.billed.promptTokens, completionTokens: usage.completionTokens + out.billed.completionTokens }
      : usage,
    latencyMs: out.latencyMs,
    attempts: out.attempts,
    ...(choice?.finish_reason ? { finishReason: choice.finish_reason } : {}),
    ...(refusal ? { refusal } : {}),
  };
}

const legacyLogprobsSchema = z
  .object({
    tokens: z.array(z.string()),
    token_logprobs: z.array(z.number().nullable()),
    text_offset: z.array(z.number()).nullish(),
  })
  .loose();

/**
 * The prompt tokens of a `/completions` answer with `echo: true, logprobs: 1`, generated
 * tokens removed; undefined when the server did not echo the prompt with log-probabilities
 * (llama.cpp, TGI and Ollama ignore `echo`, or refuse it).
 *
 * The prompt's tokens are located from what the answer says about the prompt, never from
 * `usage.completion_tokens`: vLLM counts a generated token there even when `max_tokens: 0`
 * shows none (vllm serving.py `request_output_to_completion_response`), so stripping that
 * many tokens would strip the choice itself. The choice's `text` must start with the prompt
 * sent (the echo happened); with `max_tokens: 0` every token is the prompt's; otherwise the
 * prompt's are the first `usage.prompt_tokens` (vLLM counts `len(prompt_token_ids)`, BOS
 * included), or all but the `max_tokens` generated ones when usage is missing.
 */
export function echoedTokens(response: CompletionResponse, sent: { prompt: string; maxTokens: number }): PromptToken[] | undefined {
  const choice = response.choices[0];
  const parsed = legacyLogprobsSchema.safeParse(choice?.logprobs);
  if (!parsed.success) return undefined;
  if (!choice?.text.startsWith(sent.prompt)) return undefined;
  const lp = parsed.data;
  if (lp.token_logprobs.length !== lp.tokens.length) throw malformed('tokens and token_logprobs differ in length');
  const offsets = lp.text_offset ?? undefined;
  if (offsets && offsets.length !== lp.tokens.length) throw malformed('tokens and text_offset differ in length');
  const promptCount = promptTokenCount(lp.tokens.length, response.usage?.prompt_tokens, sent.maxTokens);
  return lp.tokens.slice(0, promptCount).map((text, i) => ({
    text,
    logprob: lp.token_logprobs[i] ?? null,
    ...(offsets ? { offset: offsets[i] as number } : {}),
  }));
}

function promptTokenCount(total: number, usagePrompt: number | undefined, maxTokens: number): number {
  if (maxTokens === 0) return total;
  if (usagePrompt !== undefined && usagePrompt > 0 && usagePrompt <= total) return usagePrompt;
  return Math.max(0, total - maxTokens);
}

/**
 * A chat request for the answer's first tokens with their top-k log-probabilities (next-token
 * likert mode and its probe): greedy, {@link NEXT_TOKEN_POSITIONS} tokens, so the answer's
 * first real token is there even after a whitespace lead-in (`▁` then `4`).
 */
export function nextTokenPayload(messages: { role: string; content: string }[], topLogprobs: number): Record<string, unknown> {
  return { messages, max_tokens: NEXT_TOKEN_POSITIONS, temperature: 0, logprobs: true, top_logprobs: topLogprobs };
}

/**
 * The generated positions of a chat answer, each with its top-k alternatives; undefined when
 * the server sent none (no `logprobs.content`, or an empty top-k at the first position).
 */
export function generatedPositions(response: ChatResponse): GeneratedPosition[] | undefined {
  const content = response.choices[0]?.logprobs?.content;
  if (!content || content.length === 0 || !content[0]?.top_logprobs || content[0].top_logprobs.length === 0) return undefined;
  return content.map((c) => ({ token: c.token, logprob: c.logprob, top: (c.top_logprobs ?? []).map((t) => ({ token: t.token, logprob: t.logprob })) }));
}

/** vLLM's `prompt_logprobs` as prompt tokens: each position's dict holds the actual token when asked with 0. */
export function promptLogprobTokens(response: ChatResponse): PromptToken[] {
  const entries = response.prompt_logprobs;
  if (!entries) throw malformed('no prompt_logprobs in the response (is the endpoint vLLM?)');
  return entries.map((entry) => {
    if (entry === null) return { text: '', logprob: null };
    const values = Object.values(entry);
    if (values.length !== 1) throw malformed(`expected one prompt logprob per position, got ${values.length}`);
    const only = values[0] as { logprob: number | null; decoded_token?: string | null | undefined };
    return { text: only.decoded_token ?? '', logprob: only.logprob };
  });
}
