/**
 * `anthropic:<model>`: Anthropic's Messages API (`POST /v1/messages`) directly. What it
 * relies on, from Anthropic's API docs (read 2026-12): the key goes in `x-api-key` and every
 * request names the API version in `anthropic-version` (2023-06-01, "Versioning"); the
 * answer's `content` blocks of type `text` are the text, `usage.input_tokens`/`output_tokens`
 * the bill, `stop_reason: "refusal"` a refusal ("Messages"); 429 `rate_limit_error` carries
 * `retry-after` and 529 `overloaded_error` means the API is busy for everyone — both are
 * retried and back the concurrency off, while a 429 with `enforced_spend_limit_reached` is
 * not ("Errors"). No log-probabilities: likert benchmarks run in digit-parse mode. Model
 * rules (stop sequences with a non-whitespace character, sampling parameters per generation)
 * come from the capabilities table, as for Claude on Bedrock.
 */
import { InputError } from '#core/errors.ts';
import type { GenerateRequest, Generation, GenerationParams, Prompt, Provider } from '#core/models/index.ts';
import type { TokenUsage } from '#core/types.ts';
import { z } from 'zod';
import { addUsage, CallPolicy } from './call-policy.ts';
import { adaptParams, capabilitiesOf, cutAtStops, type ModelCapabilities } from './capabilities.ts';
import { ProviderCallError, classifySdkError } from './failures.ts';
import { postJson } from './http-json.ts';
import { badSpec, networkKind } from './network-kind.ts';
import { expectShape } from './openai-wire.ts';
import { boundKey, type ResolvedOptions } from './options.ts';
import type { BoundKey } from './key-hosts.ts';
import { promptText } from './prompt-text.ts';

/** The API version sent in `anthropic-version`. */
export const ANTHROPIC_VERSION = '2023-06-01';
const DEFAULT_BASE = 'https://api.anthropic.com';
const DEFAULT_KEY_ENV = 'ANTHROPIC_API_KEY';

/** A Messages API answer (the parts polyeval reads). */
export const anthropicMessageSchema = z
  .object({
    content: z.array(z.object({ type: z.string(), text: z.string().optional() }).loose()),
    stop_reason: z.string().nullish(),
    usage: z.object({ input_tokens: z.number(), output_tokens: z.number() }).loose(),
  })
  .loose();

export class AnthropicProvider implements Provider {
  readonly kind = 'anthropic';
  readonly concurrency: number;
  readonly #policy: CallPolicy;
  readonly #caps: ModelCapabilities;
  readonly #base: string;
  readonly #key: BoundKey;

  constructor(
    readonly id: string,
    readonly model: string,
    private readonly opts: ResolvedOptions,
  ) {
    this.concurrency = opts.concurrency;
    this.#policy = new CallPolicy(opts, (err) => classifySdkError(err, opts.now()));
    this.#caps = capabilitiesOf(opts.capabilities, 'anthropic', model);
    this.#base = anthropicBaseUrl(opts);
    this.#key = boundKey(opts, anthropicKeyEnv(opts), this.#base);
  }

  adaptParams(params: GenerationParams, style: Prompt['style']): { warnings: string[] } {
    const warnings = adaptParams(this.#caps, params).warnings;
    if (style === 'completion') warnings.push('the Messages API is chat-only: completion-style prompts are sent in their chat form');
    return { warnings };
  }

  async generate(req: GenerateRequest): Promise<Generation> {
    const url = `${this.#base}/v1/messages`;
    // Checked against the call's own URL: only a host the key is for gets it.
    const key = this.#key.for(url);
    if (!key)
      throw new InputError(`environment variable ${this.#key.variable} is not set (anthropic: reads its API key from it; name another with --api-key-env)`, {
        field: 'apiKeyEnv',
      });
    const { body, clientStops } = messagesRequest(this.#caps, this.model, req);
    const headers = { 'x-api-key': key, 'anthropic-version': ANTHROPIC_VERSION };
    const out = await this.#policy.call(async (signal) => {
      try {
        return expectShape(anthropicMessageSchema, await postJson(url, body, headers, signal, this.opts.now), 'messages');
      } catch (err) {
        // 529 overloaded_error: busy for everyone — slow down like a 429.
        if (err instanceof ProviderCallError && err.status === 529)
          throw new ProviderCallError(err.message, {
            retryable: true,
            throttled: true,
            status: 529,
            ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
          });
        throw err;
      }
    }, req.signal);
    return generationOfMessage(out.value, clientStops, out);
  }
}

/** Where `anthropic:` calls go: `--endpoint-url`, else api.anthropic.com (no trailing slash). */
export function anthropicBaseUrl(opts: ResolvedOptions): string {
  return (opts.endpointUrl ?? DEFAULT_BASE).replace(/\/+$/, '');
}

/** The variable holding the key: --api-key-env, whose default (OPENAI_API_KEY) stands for "not given" here. */
export function anthropicKeyEnv(opts: ResolvedOptions): string {
  return opts.apiKeyEnv === 'OPENAI_API_KEY' ? DEFAULT_KEY_ENV : opts.apiKeyEnv;
}

/**
 * The Messages API body of one generation after the model's rules (the same for an
 * on-demand call and a Message Batches request), and the stop sequences the answer is cut
 * at afterwards because the model would refuse them.
 */
export function messagesRequest(
  caps: ModelCapabilities,
  model: string,
  req: Pick<GenerateRequest, 'prompt' | 'params'>,
): { body: Record<string, unknown>; clientStops: string[] } {
  const { params, clientStops, omitSampling } = adaptParams(caps, req.params);
  const { prompt } = req;
  const chat = prompt.messages.length > 0;
  const body = {
    model,
    max_tokens: params.maxTokens,
    messages: chat ? prompt.messages.map((m) => ({ role: m.role, content: m.content })) : [{ role: 'user', content: promptText(prompt) }],
    ...(chat && prompt.system ? { system: prompt.system } : {}),
    ...(omitSampling ? {} : { temperature: params.temperature }),
    ...(params.topP < 1 && !omitSampling ? { top_p: params.topP } : {}),
    ...(params.stop.length > 0 ? { stop_sequences: params.stop } : {}),
  };
  return { body, clientStops };
}

/** A Messages API answer as a generation: its text blocks cut at the client-side stops, its usage, a refusal named. */
export function generationOfMessage(
  message: z.infer<typeof anthropicMessageSchema>,
  clientStops: readonly string[],
  call: { latencyMs: number; attempts: number; billed?: TokenUsage },
): Generation {
  const raw = message.content.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('');
  const text = clientStops.length > 0 ? cutAtStops(raw, clientStops) : raw;
  const usage: TokenUsage = { promptTokens: message.usage.input_tokens, completionTokens: message.usage.output_tokens };
  return {
    text,
    usage: addUsage(usage, call.billed) as TokenUsage,
    latencyMs: call.latencyMs,
    attempts: call.attempts,
    ...(message.stop_reason ? { finishReason: message.stop_reason } : {}),
    ...(message.stop_reason === 'refusal' ? { refusal: 'the model refused (stop_reason "refusal")' } : {}),
  };
}

export interface AnthropicSpec {
  scheme: 'anthropic';
  model: string;
}

/** `-m anthropic:<model>`, e.g. anthropic:claude-haiku-4-5; the key from ANTHROPIC_API_KEY (or --api-key-env). */
export const anthropic = networkKind<AnthropicSpec>({
  scheme: 'anthropic',
  usage: 'anthropic:<model>',
  description: "Anthropic's Messages API (no log-probabilities: ABRICOT runs in digit-parse mode)",
  billed: true,
  tablePriced: true,
  answersWithReference: false,
  options: ['api-key-env', 'endpoint-url'],
  iam: [],
  parse(spec, model) {
    if (model === '' || /\s/.test(model)) throw badSpec(spec, 'expected anthropic:<model>, e.g. anthropic:claude-haiku-4-5');
    return { scheme: 'anthropic', model };
  },
  open: (spec, parsed, options) => new AnthropicProvider(spec, parsed.model, options),
});
