/**
 * A fake Bedrock runtime speaking the Converse REST JSON protocol:
 * `POST /model/{modelId}/converse`, errors as `x-amzn-errortype` + `{"message"}` (restJson1),
 * so the real `@aws-sdk/client-bedrock-runtime` talks to it through an endpoint override.
 *
 * It validates as the real service does (read 2026-11 from the bedrock-runtime 2023-09-30
 * service model and the errors users report against Anthropic models on Bedrock):
 * at most 2500 `stopSequences` (a Converse constraint; Titan Text takes only "|" or "User:",
 * gpt-oss and Qwen3 none); for `anthropic.claude*` ids, a stop
 * sequence that is empty or whitespace-only is a 400 ValidationException ("stop_sequences:
 * each stop sequence must contain non-whitespace", Anthropic's own validation); for Claude
 * 4.5-generation ids and Opus 4.1, `temperature` and `topP` together are a 400 ("`temperature` and
 * `top_p` cannot both be specified for this model. Please use only one."); Opus 4.7 and later
 * refuse `temperature` at all. Stop sequences
 * are honoured (the answer ends before the first; stopReason `stop_sequence`).
 */
import { startFakeServer, type FakeServer, type FaultOptions, type RecordedRequest } from './http-server.ts';
import { tokenize } from './tokenize.ts';

export interface BedrockServerOptions extends FaultOptions {
  /** Model ids the fake serves; others get ResourceNotFoundException. Default: any. */
  models?: string[];
  /** The answer text for a prompt (system and message texts joined by blank lines). Default "ok". */
  answer?: (prompt: string, body: Record<string, unknown>, modelId: string) => string;
}

export interface BedrockServer extends FakeServer {
  /** Decoded model ids of the Converse calls received, in order. */
  modelIds(): string[];
}

interface Block {
  text?: string;
}

const CONVERSE = /^\/model\/([^/]+)\/converse$/;

/** The service's and the model's validation of an inference config; the message of the 400, or undefined. */
function validate(modelId: string, config: { temperature?: number; topP?: number; stopSequences?: string[] }): string | undefined {
  const stops = config.stopSequences ?? [];
  // Converse API reference, InferenceConfiguration (read 2026-12): stopSequences holds at most
  // 2500 items of at least 1 character each.
  if (stops.length > 2500) {
    return `1 validation error detected: Value at 'inferenceConfig.stopSequences' failed to satisfy constraint: Member must have length less than or equal to 2500`;
  }
  // The same page: "Length Constraints: Minimum length of 1" for each item, checked by the
  // service for every model before any model sees the request (the SDK does not check it).
  if (stops.some((s) => s === '')) {
    return `1 validation error detected: Value at 'inferenceConfig.stopSequences' failed to satisfy constraint: Member must satisfy constraint: [Member must have length greater than or equal to 1]`;
  }
  // Bedrock user guide, Titan Text inference parameters: only "|" or "User:", one of them.
  if (modelId.startsWith('amazon.titan-text') && (stops.length > 1 || stops.some((s) => s !== '|' && s !== 'User:'))) {
    return 'Malformed input request: stopSequences: only "|" or "User:" is supported, please reformat your input and try again.';
  }
  // Bedrock "Supported models and model features": gpt-oss and Qwen3 take no stopSequences.
  if (/^(openai\.gpt-oss|qwen\.qwen3)/.test(modelId) && config.stopSequences !== undefined) {
    return "This model doesn't support the stopSequences field. Remove stopSequences and try again.";
  }
  if (!modelId.startsWith('anthropic.claude')) return undefined;
  if (stops.some((s) => s.trim() === '')) return 'stop_sequences: each stop sequence must contain non-whitespace';
  // Anthropic's "Migrating to Claude Opus 4.7": sampling parameters are no longer accepted.
  if (/^anthropic\.claude-opus-(4-[7-9]|[5-9])(?!\d)/.test(modelId) && (config.temperature !== undefined || config.topP !== undefined)) {
    return 'The model returned the following errors: `temperature` is deprecated for this model.';
  }
  if (/^anthropic\.claude-(opus-4-1|(opus|sonnet|haiku)-(4-[5-9]|[5-9]))/.test(modelId) && config.temperature !== undefined && config.topP !== undefined) {
    return 'The model returned the following errors: `temperature` and `top_p` cannot both be specified for this model. Please use only one.';
  }
  return undefined;
}

/**
 * Converse's answer to a request body (also a batch inference record's `modelOutput`, whose
 * format "matches the response body of the Converse API"), or the 400 message it gets.
 */
export function converseAnswer(
  modelId: string,
  body: Record<string, unknown>,
  answer: (prompt: string, body: Record<string, unknown>, modelId: string) => string,
): { response: Record<string, unknown> } | { invalid: string } {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: string; content?: Block[] }[]) : [];
  if (messages.length === 0) return { invalid: 'A conversation must start with a user message.' };
  const system = Array.isArray(body.system) ? (body.system as Block[]) : [];
  const texts = [...system, ...messages.flatMap((m) => m.content ?? [])].map((b) => b.text ?? '');
  const prompt = texts.join('\n\n');
  const config = (body.inferenceConfig ?? {}) as { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  const invalid = validate(modelId.replace(/^(us|eu|apac|global)\./, ''), config);
  if (invalid) return { invalid };
  let text = answer(prompt, body, modelId);
  let stopped = false;
  for (const stop of config.stopSequences ?? []) {
    const at = text.indexOf(stop);
    if (at >= 0) {
      text = text.slice(0, at);
      stopped = true;
    }
  }
  const all = tokenize(text);
  const tokens = config.maxTokens === undefined ? all : all.slice(0, config.maxTokens);
  const inputTokens = tokenize(prompt).length;
  return {
    response: {
      output: { message: { role: 'assistant', content: [{ text: tokens.join('') }] } },
      stopReason: tokens.length < all.length ? 'max_tokens' : stopped ? 'stop_sequence' : 'end_turn',
      usage: { inputTokens, outputTokens: tokens.length, totalTokens: inputTokens + tokens.length },
      metrics: { latencyMs: 1 },
    },
  };
}

/** Starts the fake on 127.0.0.1 with a free port; use `url` as the endpoint. */
export async function startBedrockServer(options: BedrockServerOptions = {}): Promise<BedrockServer> {
  const answer = options.answer ?? (() => 'ok');
  // Bedrock has no overloaded error of a model: too many requests at once is its 429
  // ThrottlingException (Bedrock Runtime API reference, Converse, Errors).
  const error = (status: number, type: string, message: string) => ({
    status,
    headers: {
      'x-amzn-errortype': `${type === 'overloaded' ? 'ThrottlingException' : type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      'x-amzn-requestid': 'fake',
    },
    body: { message: type === 'overloaded' ? 'Too many requests, please wait before trying again.' : message },
  });

  const server = await startFakeServer(
    (req: RecordedRequest) => {
      const match = CONVERSE.exec(req.path);
      if (req.method !== 'POST' || !match) return error(404, 'UnknownOperationException', `no route ${req.method} ${req.path}`);
      const modelId = decodeURIComponent(match[1] ?? '');
      if (options.models && !options.models.includes(modelId)) {
        return error(404, 'ResourceNotFoundException', `Model ${modelId} not found or not accessible in this region.`);
      }
      const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
      const out = converseAnswer(modelId, body, answer);
      return 'invalid' in out ? error(400, 'ValidationException', out.invalid) : { status: 200, headers: { 'x-amzn-requestid': 'fake' }, body: out.response };
    },
    error,
    options,
  );

  return {
    ...server,
    modelIds: () => server.requests.map((r) => decodeURIComponent(CONVERSE.exec(r.path)?.[1] ?? '')).filter((id) => id !== ''),
  };
}
