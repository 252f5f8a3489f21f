/**
 * A fake of Anthropic's Messages API (`POST /v1/messages`), built from Anthropic's API docs
 * (read 2026-12): "Messages" (request `model`, `max_tokens` (required), `messages`, `system`,
 * `temperature`, `top_p`, `stop_sequences`; answer `content: [{type: "text", text}]`,
 * `stop_reason` end_turn | max_tokens | stop_sequence | refusal, `usage.input_tokens` /
 * `output_tokens`), "Versioning" (the `anthropic-version` header is required; 2023-06-01),
 * "Errors" (`{"type": "error", "error": {"type", "message"}}`: 400 invalid_request_error,
 * 401 authentication_error, 429 rate_limit_error with a `retry-after` header, 529
 * overloaded_error; a 429 whose `error.details.error_code` is `enforced_spend_limit_reached`
 * lasts until the month's end). Model validation as Anthropic answers it: a stop sequence
 * without a non-whitespace character is a 400; Claude 4.5-generation models and Opus 4.1
 * refuse `temperature` with `top_p`; Opus 4.7 and later refuse `temperature` ("`temperature`
 * is deprecated for this model").
 */
import { startFakeServer, type FakeServer, type FaultOptions, type RecordedRequest } from './http-server.ts';
import { tokenize } from './tokenize.ts';

export interface AnthropicServerOptions extends FaultOptions {
  /** The key `x-api-key` must carry (default: any non-empty key). */
  apiKey?: string;
  /** The answer text for a prompt (system and message texts joined by blank lines). Default "ok". */
  answer?: (prompt: string, body: Record<string, unknown>) => string;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/** Starts the fake on 127.0.0.1; use its `url` as `--endpoint-url`. */
export async function startAnthropicServer(options: AnthropicServerOptions = {}): Promise<FakeServer> {
  const answer = options.answer ?? (() => 'ok');
  const error = (status: number, type: string, message: string): { status: number; headers: Record<string, string>; body: unknown } => {
    // The spend cap: a 429 without retry-after whose details name the cause.
    if (type === 'enforced_spend_limit_reached') {
      return { status, headers: {}, body: { type: 'error', error: { type: 'rate_limit_error', message, details: { error_code: type } } } };
    }
    return {
      status,
      headers: status === 429 ? { 'retry-after': '1' } : {},
      body: { type: 'error', error: { type: ERROR_TYPES[status] ?? (status === 503 ? 'overloaded_error' : type), message } },
    };
  };
  return startFakeServer(
    (req: RecordedRequest) => {
      if (req.method !== 'POST' || req.path !== '/v1/messages') return error(404, 'not_found_error', `no route ${req.method} ${req.path}`);
      const key = req.headers['x-api-key'];
      if (typeof key !== 'string' || key === '' || (options.apiKey !== undefined && key !== options.apiKey))
        return error(401, 'authentication_error', 'invalid x-api-key');
      if (typeof req.headers['anthropic-version'] !== 'string') return error(400, 'invalid_request_error', 'anthropic-version: header is required');
      const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
      const invalid = validateMessagesBody(body);
      if (invalid) return error(400, 'invalid_request_error', invalid);
      return { status: 200, body: answerMessage(body, answer) };
    },
    error,
    options,
  );
}

/**
 * The Messages API's answer to a valid body (also each succeeded Message Batches request's
 * `message`): the text cut at the first stop sequence found, then at `max_tokens` tokens;
 * `stop_reason` max_tokens | stop_sequence | end_turn ("Messages", response `stop_reason`).
 */
export function answerMessage(body: Record<string, unknown>, answer: (prompt: string, body: Record<string, unknown>) => string): Record<string, unknown> {
  const messages = body.messages as { content: string }[];
  const prompt = [...(typeof body.system === 'string' ? [body.system] : []), ...messages.map((m) => m.content)].join('\n\n');
  let text = answer(prompt, body);
  let stopSequence: string | null = null;
  for (const stop of (body.stop_sequences as string[] | undefined) ?? []) {
    const at = text.indexOf(stop);
    if (at >= 0) {
      text = text.slice(0, at);
      stopSequence = stop;
    }
  }
  const all = tokenize(text);
  const tokens = all.slice(0, body.max_tokens as number);
  const stopReason = tokens.length < all.length ? 'max_tokens' : stopSequence !== null ? 'stop_sequence' : 'end_turn';
  return {
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model: body.model,
    content: [{ type: 'text', text: tokens.join('') }],
    stop_reason: stopReason,
    stop_sequence: stopReason === 'stop_sequence' ? stopSequence : null,
    usage: { input_tokens: tokenize(prompt).length, output_tokens: tokens.length },
  };
}

/** The 400 message the Messages API gives a body, or undefined when it takes it (also each Message Batches request's, asynchronously). */
export function validateMessagesBody(body: Record<string, unknown>): string | undefined {
  const model = String(body.model ?? '');
  if (typeof body.max_tokens !== 'number') return 'max_tokens: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  const stops = Array.isArray(body.stop_sequences) ? (body.stop_sequences as string[]) : [];
  // Anthropic answers an empty stop sequence apart from a whitespace-only one, first offender
  // first: `["", "\n"]` gets "must be non-empty" (reported in MegaGrindStone/mcp-web-ui#5),
  // `["\n"]` gets "must contain non-whitespace" (BerriAI/litellm#3286).
  for (const stop of stops) {
    if (stop === '') return 'stop_sequences: each stop sequence must be non-empty';
    if (stop.trim() === '') return 'stop_sequences: each stop sequence must contain non-whitespace';
  }
  if (/^claude-opus-(4-[7-9]|[5-9])(?!\d)/.test(model) && body.temperature !== undefined) return '`temperature` is deprecated for this model.';
  if (/^claude-(opus-4-1|(opus|sonnet|haiku)-(4-[5-9]|[5-9]))/.test(model) && body.temperature !== undefined && body.top_p !== undefined) {
    return '`temperature` and `top_p` cannot both be specified for this model. Please use only one.';
  }
  return undefined;
}
