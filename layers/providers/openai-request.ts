/**
 * The body of one OpenAI-wire generation call after the model's rules — the ONE place the
 * on-demand `openai:` family (`OpenAiProvider`) and the OpenAI Batch encoder build it, so a
 * batch line is the body an on-demand call would POST (a reasoning model gets
 * `max_completion_tokens`, no temperature or top_p, its lowest `reasoning_effort`; a Qwen3
 * behind vLLM its template's thinking switch), and what a server refused once is left out of
 * both.
 *
 * Also here: the parameters a server may refuse with a 400 and the call succeeds without
 * ({@link RefusedFields}), and the reading of an answer left empty by thinking
 * ({@link emptyForThinking}).
 */
import type { GenerationParams } from '#core/models/index.ts';
import { adaptParams, type ModelCapabilities } from './capabilities.ts';
import { ProviderCallError } from './failures.ts';
import { samplingFields } from './openai-wire.ts';

/** The fields of a generation body (no model, prompt or messages) and the stops cut after the call. */
export interface GenerationFields {
  fields: Record<string, unknown>;
  clientStops: string[];
}

/**
 * Sampling, the length field and thinking control of a generation call to `model`.
 * `endpoint` decides the thinking fields: they are chat parameters (OpenAI, vLLM, Ollama take
 * `reasoning_effort` and `chat_template_kwargs` on chat completions only).
 *
 * @example
 * generationFields(capabilitiesOf(table, 'openai', 'o3-mini'), params, undefined, 'o3-mini', '/chat/completions', new RefusedFields()).fields;
 * // { max_completion_tokens: 4 + budget, reasoning_effort: 'low' } — no temperature, no top_p
 */
export function generationFields(
  caps: ModelCapabilities,
  params: GenerationParams,
  seed: number | undefined,
  model: string,
  endpoint: '/completions' | '/chat/completions',
  refused: RefusedFields,
): GenerationFields {
  const adapted = adaptParams(caps, params, model);
  const fields = { ...samplingFields(adapted.params, seed, adapted), ...(endpoint === '/chat/completions' ? thinkingFields(caps) : {}) };
  return { fields: refused.strip(fields), clientStops: adapted.clientStops };
}

/**
 * The thinking control of a chat call: `reasoning_effort` at the model's lowest (the
 * capability table's per-model value: "none" on gpt-5.1 and later, Gemini 2.5 Flash and
 * Ollama; "minimal" on gpt-5; "low" on o-series, Gemini 2.5 Pro and 3.x), and Qwen3's template
 * switch `chat_template_kwargs: {enable_thinking: false}` (vLLM docs, "Reasoning Outputs":
 * Qwen3's reasoning is on by default, off with that kwarg; llama.cpp's server takes the same
 * field; Ollama's OpenAI route ignores fields it does not know).
 */
export function thinkingFields(caps: ModelCapabilities): Record<string, unknown> {
  return {
    ...(caps.reasoningEffort ? { reasoning_effort: caps.reasoningEffort } : {}),
    ...(caps.templateThinkingOff ? { chat_template_kwargs: { enable_thinking: false } } : {}),
  };
}

/**
 * How a server's 400 names `field` as the thing it refuses — never a mere mention: a pydantic
 * error on another check (vLLM's model validators) echoes the whole request body as its
 * `input`, field names included, and must not cost the run a field it never refused.
 * - vLLM: pydantic's location `('body', 'field')` (vllm entrypoints/openai/protocol.py
 *   ChatCompletionRequest; FastAPI RequestValidationError), or VLLMValidationError's
 *   `(parameter=field, …)` suffix (vllm/exceptions.py);
 * - OpenAI / Azure: `Unsupported parameter: 'field' …`, `Unrecognized request argument supplied: field`;
 * - Gemini's OpenAI compatibility: `Invalid field: …`; Google's JSON parser: `Unknown name "field"`.
 */
function namedAsRefused(field: string): RegExp {
  const f = field.replace(/_/g, '[._]');
  return new RegExp(
    [
      `\\(\\s*'body',\\s*'${f}'`,
      `\\(parameter=${f}\\b`,
      `unsupported parameter:?\\s*'?${f}\\b`,
      `unrecognized request argument supplied:?\\s*${f}\\b`,
      `invalid ${f}\\b`,
      `unknown name \\\\?"${f}\\b`,
      `'${f}' is not (supported|allowed|permitted)`,
    ].join('|'),
    'i',
  );
}

/**
 * Optional request fields a server answers 400 for, and how its message names them. Each is
 * a field the call does without: the answer is the same, only less controlled.
 */
const REFUSABLE: readonly { field: string; also?: string[]; said: RegExp }[] = [
  // Ollama v0.11.5–v0.12.3: openai.go FromChatRequest passes reasoning_effort on as the string
  // think value, and server/routes.go ChatHandler answers 400 `think value "none" is not
  // supported for this model` for any model whose parser is not harmony (fixed in v0.12.4:
  // "none" becomes Think=false, ollama@1b91d4dd). A server that validates the field itself
  // names it as refused (vLLM's pydantic Literal error at ('body', 'reasoning_effort'); OpenAI's
  // `Unsupported parameter: 'reasoning_effort'` on models that take none).
  { field: 'reasoning_effort', said: new RegExp(`think value "[^"]*" is not supported|${namedAsRefused('reasoning_effort').source}`, 'i') },
  { field: 'chat_template_kwargs', said: namedAsRefused('chat_template_kwargs') },
  // "logprobs is not supported with this model" (OpenAI reasoning models), "Logprobs is not
  // enabled for <model>" (Gemini): the call goes on without log-probabilities. A range error on
  // top_logprobs (Ollama's "top_logprobs must be between 0 and 20") is not a refusal of the field,
  // nor is a body echoed by an unrelated error ({'logprobs': True, …}).
  {
    field: 'logprobs',
    also: ['top_logprobs'],
    said: new RegExp(`\\blogprobs\\b[^.\\n'"]{0,40}\\b(not supported|not enabled|unsupported|not allowed)|${namedAsRefused('logprobs').source}`, 'i'),
  },
];

/**
 * The fields this provider's server refused, learned from its first 400 and left out of every
 * later call of the run (one instance per provider, shared by all its calls): a server that
 * refuses `reasoning_effort` costs one failed call per run, not one per item.
 */
export class RefusedFields {
  readonly #refused = new Set<string>();
  readonly #notes: string[] = [];

  /** `body` without the fields learned so far. */
  strip<T extends Record<string, unknown>>(body: T): T {
    if (this.#refused.size === 0) return body;
    return Object.fromEntries(Object.entries(body).filter(([k]) => !this.#refused.has(k))) as T;
  }

  has(field: string): boolean {
    return this.#refused.has(field);
  }

  /** What was learned, one sentence per field (for the run's log). */
  get notes(): readonly string[] {
    return this.#notes;
  }

  /** The server's words refusing `field`, when it did. */
  noteOf(field: string): string | undefined {
    return this.#notes.find((n) => n.startsWith(`the server refused ${field} `));
  }

  /**
   * Learns from a failed call of `body`: true when the error is a 400 refusing a field the body
   * sent and that field is now left out (the caller sends the body again, once); false otherwise.
   */
  learn(err: unknown, body: Record<string, unknown>): boolean {
    if (!(err instanceof ProviderCallError) || (err.status !== 400 && err.status !== 422)) return false;
    const rule = REFUSABLE.find((r) => r.field in body && !this.#refused.has(r.field) && r.said.test(err.message));
    if (!rule) return false;
    for (const f of [rule.field, ...(rule.also ?? [])]) this.#refused.add(f);
    this.#notes.push(`the server refused ${rule.field} (${err.message.slice(0, 160)}); calls go on without it`);
    return true;
  }
}

/**
 * Why an answer came back empty because the model spent its limit thinking, or undefined: no
 * text, and the response shows thinking — reasoning tokens in `usage.completion_tokens_details`
 * (OpenAI, Azure), a `reasoning`/`reasoning_content` message field (Ollama openai.go
 * ToChatCompletion; vLLM's reasoning parsers), or billed tokens beyond the prompt and the
 * answer (Gemini counts thoughts in total_tokens only).
 */
export function emptyForThinking(
  choice: { message?: Record<string, unknown> | undefined; finish_reason?: string | null | undefined } | undefined,
  usage: unknown,
): string | undefined {
  const content = choice?.message?.content;
  if (typeof content === 'string' && content.trim() !== '') return undefined;
  const u = (typeof usage === 'object' && usage !== null ? usage : {}) as {
    prompt_tokens?: number;
    completion_tokens?: number;
    total_tokens?: number;
    completion_tokens_details?: { reasoning_tokens?: number } | null;
  };
  const reasoningTokens = u.completion_tokens_details?.reasoning_tokens ?? 0;
  const reasoningText = [choice?.message?.reasoning, choice?.message?.reasoning_content].find((r) => typeof r === 'string' && r !== '') as string | undefined;
  const hidden =
    u.total_tokens !== undefined && u.prompt_tokens !== undefined && u.completion_tokens !== undefined
      ? u.total_tokens - u.prompt_tokens - u.completion_tokens
      : 0;
  // No text at all, cut at the limit, yet output billed: those tokens were thinking (Gemini's
  // OpenAI-shaped usage counts thoughts in completion_tokens without a breakdown).
  const unseen = content !== null && content !== undefined && content !== '' ? 0 : choice?.finish_reason === 'length' ? (u.completion_tokens ?? 0) : 0;
  if (reasoningTokens <= 0 && reasoningText === undefined && hidden <= 0 && unseen <= 0) return undefined;
  const spent =
    reasoningTokens > 0 ? `${reasoningTokens} reasoning tokens` : hidden > 0 ? `${hidden} thinking tokens` : unseen > 0 ? `${unseen} tokens` : 'its limit';
  return `empty answer: the model spent ${spent} thinking and returned no text (finish_reason ${JSON.stringify(choice?.finish_reason ?? null)}); raise --max-tokens, or use a model or setting whose thinking can be turned off`;
}
