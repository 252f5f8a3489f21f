/**
 * A fake of Google's Gemini API behind its OpenAI-compatible endpoint
 * (`POST /v1beta/openai/chat/completions`). Gemini's server is not public: every behaviour
 * comes from Google's docs (read 2026-12) or, where they are silent, from answers quoted in
 * public issues, named at each place:
 *
 * - "OpenAI compatibility" (ai.google.dev/gemini-api/docs/openai): the base URL
 *   …/v1beta/openai/, the key as `Authorization: Bearer`, chat completions in OpenAI's shape;
 *   no legacy `/completions` route (404 here).
 * - Error bodies: Google's `{"error": {code, message, status}}`, which this endpoint sends
 *   wrapped in a one-element JSON array — a 429 RESOURCE_EXHAUSTED in n4ze3m/page-assist#406,
 *   a 400 API_KEY_INVALID in continuedev/continue#8516 (message "API key not valid. Please
 *   pass a valid API key.").
 * - 429: by default the body quoted from this endpoint in n4ze3m/page-assist#406,
 *   `[{"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).",
 *   "status": "RESOURCE_EXHAUSTED"}}]`, with no `details` and no retry delay ("Troubleshooting",
 *   ai.google.dev/gemini-api/docs/troubleshooting, describes 429 RESOURCE_EXHAUSTED as "You've
 *   exceeded the rate limit" — a description, not the wire text). `retryDelay` plays the
 *   native API's quota error instead: "You exceeded your current quota, please check your plan
 *   and billing details. …" with `google.rpc.QuotaFailure` and `google.rpc.RetryInfo` details
 *   (as logged from a real 429 in public repositories; dev.to/nils44344); `perDay` makes its
 *   violation the per-day quota `GenerateRequestsPerDayPerProjectPerModel-FreeTier`.
 *   503 UNAVAILABLE "The service may be temporarily overloaded or down"; 404 NOT_FOUND.
 * - Log-probabilities: models where they are off answer 400 INVALID_ARGUMENT "Logprobs is not
 *   enabled for models/<model>" (mscraftsman/generative-ai#135, googleapis/python-genai#1921);
 *   elsewhere `top_logprobs` is taken in 1–20 (the SDK's `logprobs` range, noted in
 *   GoogleCloudPlatform/generative-ai#2947) and returned in OpenAI's chat shape.
 * - Stop sequences: GenerationConfig.stopSequences takes up to 5 (Gemini API reference,
 *   generateContent); the message of a longer list is not documented, so the fake's 400 is
 *   generic — it exists so a test sees polyeval never sends more.
 * - Thinking (2.5 and later): thinking tokens count against `max_tokens`; when it is spent
 *   first the answer is empty with finish reason length (googleapis/python-genai#811, #2062,
 *   vectorize-io/hindsight#3365). Thinking is billed as output ("Pricing": output price
 *   including thinking tokens). `reasoning_effort` ("OpenAI compatibility" page, as quoted by
 *   feedback.typingmind.com): "none" turns thinking off where the model can (2.5 Flash,
 *   Flash-Lite; `canDisableThinking`), "low" is the lowest budget (`lowThinking` tokens). Where
 *   thinking cannot be turned off, the fake answers 400 with Google's generic "Request contains
 *   an invalid argument." (the real message is not documented). Whether `completion_tokens`
 *   includes the thoughts on this endpoint is not documented (the native API reports
 *   `thoughtsTokenCount` apart): `thoughtsInTotalOnly` plays an endpoint that counts them in
 *   `total_tokens` only, as OpenAI-shape translators do (router-for-me/CLIProxyAPI#5733).
 *
 * Tokens are the toy tokeniser's (tokenize.ts): no Gemini tokenizer is published on npm.
 */
import { startFakeServer, type FakeServer, type FaultOptions, type RecordedRequest } from './http-server.ts';
import { flatLogprob, tokenize, type LogprobFn } from './tokenize.ts';

export interface GeminiModel {
  /** Whether log-probabilities are enabled for the model (default false, as on 2.5 models). */
  logprobs?: boolean;
  /** Tokens the model thinks before answering (default 0). */
  thinking?: number;
  /** `reasoning_effort: "none"` turns the thinking off (2.5 Flash and Flash-Lite). */
  canDisableThinking?: boolean;
  /** Tokens thought at `reasoning_effort: "low"` (default `thinking`). */
  lowThinking?: number;
}

export interface GeminiServerOptions extends FaultOptions {
  apiKey: string;
  /** The models served, by id. */
  models: Record<string, GeminiModel>;
  /** The answer to a prompt (the messages' contents joined by blank lines). Default "ok". */
  answer?: (prompt: string, body: Record<string, unknown>) => string;
  /** log P(token | context) for next-token alternatives. Default -1. */
  logprob?: LogprobFn;
  /** A 429 in the native quota form with this `RetryInfo.retryDelay` (default: page-assist#406's body, no details). */
  retryDelay?: string;
  /** The quota 429 is the per-day one (with `retryDelay`'s form). */
  perDay?: boolean;
  /** `completion_tokens` without the thoughts, `total_tokens` with them. */
  thoughtsInTotalOnly?: boolean;
}

export interface GeminiServer extends FakeServer {
  /** The base URL, ending in /v1beta/openai (what `gemini:<base-url>#<model>` takes). */
  url: string;
}

const BASE = '/v1beta/openai';
const CANDIDATES = ['1', '2', '3', '4', '5', ' 1', ' 2', ' 3', ' 4', ' 5', 'Il', 'La', '\n', 'Non'];
const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

export async function startGeminiServer(options: GeminiServerOptions): Promise<GeminiServer> {
  const answer = options.answer ?? (() => 'ok');
  const logprob = options.logprob ?? flatLogprob;

  /** Google's error, array-wrapped as this endpoint sends it. */
  const error = (status: number, _type: string, message: string, details?: unknown[]) => ({
    status,
    headers: {},
    body: [{ error: { code: status, message, status: STATUS[status] ?? 'UNKNOWN', ...(details ? { details } : {}) } }],
  });
  const render = (status: number, type: string, message: string) => {
    if (status === 429 && options.retryDelay === undefined && !options.perDay) return error(429, type, 'Resource has been exhausted (e.g. check quota).');
    if (status === 429) {
      const delay = options.retryDelay ?? '59s';
      return error(
        429,
        type,
        'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. \n' +
          `* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 20, model: fake\nPlease retry in ${delay}.`,
        [
          {
            '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
            violations: [
              {
                quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
                quotaId: options.perDay ? 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' : 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
                quotaValue: '20',
              },
            ],
          },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: delay },
        ],
      );
    }
    // The API's 503 message as quoted in google-gemini/cookbook#425.
    if (status === 503) return error(503, type, 'The model is overloaded. Please try again later.');
    return error(status, type, message);
  };

  function chat(body: Record<string, unknown>, model: GeminiModel, id: string) {
    const messages = Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : [];
    if (messages.length === 0) return error(400, '', '* GenerateContentRequest.contents: contents is not specified');
    const stop = Array.isArray(body.stop) ? body.stop : typeof body.stop === 'string' ? [body.stop] : [];
    if (stop.length > 5) return error(400, '', 'Request contains an invalid argument.');
    const wantLogprobs = body.logprobs === true;
    const k = typeof body.top_logprobs === 'number' ? body.top_logprobs : 0;
    if (wantLogprobs && !model.logprobs) return error(400, '', `Logprobs is not enabled for models/${id}`);
    if (wantLogprobs && (k < 0 || k > 20)) return error(400, '', 'Request contains an invalid argument.');
    const prompt = messages.map((m) => String(m.content ?? '')).join('\n\n');
    let text = answer(prompt, body);
    let stopped = false;
    for (const s of stop.map(String)) {
      const at = s === '' ? -1 : text.indexOf(s);
      if (at >= 0) {
        text = text.slice(0, at);
        stopped = true;
      }
    }
    const all = tokenize(text);
    const effort = body.reasoning_effort;
    if (effort === 'none' && (model.thinking ?? 0) > 0 && !model.canDisableThinking) return error(400, '', 'Request contains an invalid argument.');
    const thinking = effort === 'none' ? 0 : effort === 'low' ? Math.min(model.thinking ?? 0, model.lowThinking ?? model.thinking ?? 0) : (model.thinking ?? 0);
    const max = typeof body.max_tokens === 'number' ? body.max_tokens : 65_536;
    const room = Math.max(0, max - thinking);
    const tokens = all.slice(0, room);
    const finish = tokens.length < all.length && !stopped ? 'length' : 'stop';
    const context = `${prompt}\n\n`;
    const logprobs = wantLogprobs
      ? {
          content: tokens.map((token, i) => {
            const before = context + tokens.slice(0, i).join('');
            const top = CANDIDATES.map((t) => ({ token: t, logprob: logprob(before, t) }))
              .sort((a, b) => b.logprob - a.logprob)
              .slice(0, k);
            return { token, logprob: logprob(before, token), top_logprobs: top };
          }),
        }
      : undefined;
    const promptTokens = tokenize(prompt).length;
    const thought = Math.min(max, thinking);
    const completion = (options.thoughtsInTotalOnly ? 0 : thought) + tokens.length;
    return {
      status: 200,
      body: {
        id: `gemini-${server.requests.length}`,
        object: 'chat.completion',
        created: 1_767_225_600,
        model: id,
        choices: [{ index: 0, message: { role: 'assistant', content: tokens.join('') }, finish_reason: finish, ...(logprobs ? { logprobs } : {}) }],
        usage: { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + thought + tokens.length },
      },
    };
  }

  const server = await startFakeServer(
    (req: RecordedRequest) => {
      if (req.headers.authorization !== `Bearer ${options.apiKey}`) {
        return error(400, '', 'API key not valid. Please pass a valid API key.', [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
        ]);
      }
      // Any other route (there is no legacy /completions): NOT_FOUND ("Troubleshooting": 404 NOT_FOUND, "The requested resource wasn't found").
      if (req.method !== 'POST' || req.path !== `${BASE}/chat/completions`) return error(404, '', `Requested entity was not found: ${req.path}`);
      const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
      // The endpoint prefixes "models/" when the name has no slash ("OpenAI compatibility" reference, chatCompletions `model`).
      const id = String(body.model ?? '').replace(/^models\//, '');
      const model = options.models[id];
      if (!model) return error(404, '', `models/${id} is not found for API version v1main, or is not supported for generateContent.`);
      return chat(body, model, id);
    },
    render,
    options,
  );
  return { ...server, url: `${server.url}${BASE}` };
}
