/**
 * A fake OpenAI-compatible server: `POST <base>/chat/completions`, `POST <base>/completions`
 * and `GET <base>/models`, with the real response shapes and error bodies of one of the
 * servers polyeval meets behind `openai:`. Each flavour copies what that server does, read
 * from its source:
 *
 * - `vllm` (default) — vllm-project/vllm (vllm/entrypoints/openai/completion/serving.py
 *   @cc139d8 `request_output_to_completion_response`, `_create_completion_logprobs`):
 *   `/completions` with `echo` returns the prompt's tokens and log-probabilities (first one
 *   null) before the generated ones; `max_tokens: 0` returns the prompt only; `text_offset` is
 *   a running sum of token-string lengths from 0 (echo or not: the non-streamed answer passes
 *   no initial offset); `top_logprobs` holds the token and its `logprobs` best alternatives;
 *   `logprobs` (or chat `top_logprobs`) above 20 and `max_tokens: 0` without echo are 400s (see
 *   vllm-completion.ts `vllmRefusal`); chat takes `logprobs` + `top_logprobs`. This flavour's tokeniser adds no BOS (Qwen-style). With `tokenizer`
 *   (`llama3`, `qwen3`, `llama2`) `/completions` tokenizes with that model's real tokenizer
 *   and answers exactly as vLLM does (vllm-completion.ts): BOS echoed, token strings as
 *   `convert_ids_to_tokens` or per-id `decode`, and `usage.completion_tokens` 1 for an echo
 *   with `max_tokens: 0` (the engine generates one token it does not show).
 * - `vllm-llama` — the same server with a Llama-3 tokenizer: the echoed tokens start with
 *   the BOS `<|begin_of_text|>` (logprob null) while `text` is the raw prompt, so every
 *   `text_offset` is shifted by the BOS string's 17 characters; with `byteLevel` the tokens
 *   are reported as `convert_ids_to_tokens` strings (`Ġ3`), as vLLM releases before
 *   `decoded_token` did.
 * - `llama.cpp` — ggml-org/llama.cpp @ 00efb3e (tools/server/server-task.cpp): `/completions`
 *   refuses `echo: true` with HTTP 500 "Only no echo is supported" (server-common.cpp
 *   `oaicompat_completion_params_parse`); `logprobs` come as `{content: [{id, token, bytes, logprob, top_logprobs}]}`
 *   for generated tokens only (null when none); chat returns the same `logprobs.content`;
 *   empty stop strings are dropped.
 * - `tgi` — huggingface/text-generation-inference v3.3.7 (router/src/server.rs, lib.rs):
 *   the Messages API's `/v1/completions` has no `echo` and answers `logprobs: null`; chat
 *   `top_logprobs` above `--max-top-n-tokens` (default 5) is a 422 validation error, and so
 *   is any `top_p` outside (0, 1) (router/src/validation.rs `validate`).
 * - `openai-chat` — OpenAI's chat models: `/completions` answers 404 ("This is a chat model
 *   and not supported in the v1/completions endpoint"); chat `top_logprobs` up to 20;
 *   a refusal is `content: null` with `refusal` set. Reasoning models (o-series, gpt-5*):
 *   `max_tokens`, `temperature` ≠ 1, `top_p`, `stop` and `logprobs` are 400
 *   `unsupported_parameter` ("Unsupported parameter: 'x' is not supported with this model.");
 *   `reasoning_effort` is checked per model as the API reference's ReasoningEffort lists it
 *   (o-series low|medium|high; gpt-5 minimal|low|medium|high; gpt-5.1 and later
 *   none|low|medium|high, else 400 `unsupported_value` "Unsupported value: 'minimal' is not
 *   supported with the 'gpt-5.1' model. Supported values are: 'none', 'low', 'medium', and
 *   'high'." as quoted in openai/openai-agents-python#2089); the default effort is medium
 *   before gpt-5.1 and none from it. Reasoning tokens (`reasoning`, by effort) come out of
 *   `max_completion_tokens` before the answer and are reported in
 *   `usage.completion_tokens_details.reasoning_tokens`; a limit they use up leaves
 *   `content: ""` with `finish_reason: "length"` (OpenAI's reasoning guide, "Allocating space
 *   for reasoning").
 * - `mistral` — Mistral's API (La Plateforme), read in mistralai/client-python @05629d2
 *   (v2.5.1): `POST /v1/chat/completions` only (chat.py `complete`; no legacy completions
 *   route: 404 here), the key as `Authorization: Bearer` (models/security.py). The request
 *   model (models/chatcompletionrequest.py `ChatCompletionRequest`) lists the fields it takes —
 *   `random_seed`, not `seed`; `safe_prompt`; no `logprobs` — and the API refuses any other
 *   with 422 `{object: "error", message: {detail: [{type: "extra_forbidden", loc: ["body",
 *   <field>], msg: "Extra inputs are not permitted", input}]}, type: "invalid_request_error",
 *   param: null, code: null}` (the body quoted in Gage-Technologies/mistral-go#2 and
 *   nomtek/mistralai_client_dart#44). Other errors are `{object: "error", message, type, param,
 *   code}` (docs.mistral.ai/resources/error-glossary); a 429 is "Rate limit exceeded", type
 *   `rate_limited`, code "1300" (quoted in earendil-works/pi#9815), with Retry-After (the
 *   glossary) when the fault gives one.
 *
 * - `azure` — Azure OpenAI, OpenAI's models (the `openai-chat` rules) behind Azure's routes,
 *   key header and error bodies. Read in Microsoft Learn (REST reference, data plane 2024-10-21,
 *   "Chat completions" and "Completions - Create"; "Azure OpenAI API version lifecycle"; "Content
 *   filtering") and in openai/openai-node @0eda70a src/azure.ts `AzureOpenAI` (`buildRequest`:
 *   `/chat/completions` and `/completions` go to `/deployments/{model}{path}` under
 *   `<endpoint>/openai`; `prepareOptions`: the key in `api-key`; the `api-version` query):
 *   `POST /openai/v1/chat/completions` names the deployment in the body's `model` (the v1 API,
 *   GA August 2025, no api-version); `POST /openai/deployments/{d}/chat/completions?api-version=…`
 *   names it in the path; `/completions` there answers 400 `OperationNotSupported` ("The
 *   completion operation does not work with the specified model") except on a completions
 *   deployment (gpt-35-turbo-instruct: `echo`, `logprobs`, answered vLLM-shaped here). The key
 *   travels in `api-key`; a wrong one is 401 "Access denied due to invalid subscription key or
 *   wrong API endpoint…". Errors are `{error: {code, message}}`. An unknown deployment is 404
 *   `DeploymentNotFound` (message as quoted in MicrosoftDocs/azure-docs#114013 and
 *   Azure-Samples/azure-search-openai-demo-csharp#379). Content filtering: a filtered prompt is
 *   400 `code: "content_filter"`, `param: "prompt"`, `innererror.code:
 *   "ResponsibleAIPolicyViolation"` with its `content_filter_result`; a filtered answer is a 200
 *   whose choice has `finish_reason: "content_filter"`, no content, and `content_filter_results`.
 * - `gemini` — Google's Gemini API behind its OpenAI-compatible endpoint. The server is not
 *   public: read in ai.google.dev/gemini-api/docs/openai ("OpenAI compatibility", read 2026-12:
 *   base URL …/v1beta/openai/, `Authorization: Bearer`, chat completions only, `models/` prefixed
 *   to a bare name, `reasoning_effort` "none" turns thinking off where the model can (2.5 Flash,
 *   Flash-Lite), "low" the lowest budget), the Gemini API reference (GenerationConfig
 *   `stopSequences`: at most 5) and answers quoted in public issues: errors are Google's
 *   `{error: {code, message, status}}` wrapped in a one-element array (a 429 in
 *   n4ze3m/page-assist#406: "Resource has been exhausted (e.g. check quota)."; a wrong key is
 *   400 API_KEY_INVALID "API key not valid. Please pass a valid API key.", continuedev/continue#8516);
 *   the native quota 429 with `google.rpc.QuotaFailure` and `google.rpc.RetryInfo` details
 *   (dev.to/nils44344) plays with `quota`; 503 "The model is overloaded. Please try again later."
 *   (google-gemini/cookbook#425); a model without log-probabilities answers 400 "Logprobs is not
 *   enabled for models/<model>" (mscraftsman/generative-ai#135, googleapis/python-genai#1921),
 *   elsewhere `top_logprobs` 1–20 (GoogleCloudPlatform/generative-ai#2947); thinking counts
 *   against `max_tokens` and an answer it starves is empty with finish reason length
 *   (googleapis/python-genai#811, #2062); a model that cannot stop thinking answers
 *   `reasoning_effort: "none"` with the generic 400 "Request contains an invalid argument."
 *   (the real message is undocumented, as is the stop-list one). `thoughtsInTotalOnly` plays an
 *   endpoint that counts thoughts in `total_tokens` only (router-for-me/CLIProxyAPI#5733).
 *   Tokens are the toy tokeniser's: no Gemini tokenizer is published.
 *
 * Every difference between them is a row of {@link VENDORS}: the request handling reads the
 * row, never the flavour's name. Adding a vendor that speaks this wire is adding a row (and, if
 * it needs one, a field the handler reads).
 *
 * @example
 * // Favours the digit 4 after every ABRICOT prompt, as vLLM serving Llama 3 would report it:
 * const server = await startOpenAiServer({ flavour: 'vllm-llama', logprob: (ctx, tok) => (tok === '4' ? -0.1 : -3) });
 * // spec: `openai:${server.url}#fake-model`
 */
import { startFakeServer, type FakeServer, type FaultOptions, type RecordedRequest } from './http-server.ts';
import type { TokenizerName, TokenStrings } from './real-tokenizers.ts';
import { familyChat, type ChatSpelling } from './family-chat.ts';
import { flatLogprob, scoreText, tokenize, tokenId, type LogprobFn } from './tokenize.ts';
import { VLLM_MAX_LOGPROBS, vllmCompletion, vllmRefusal } from './vllm-completion.ts';

export type OpenAiFlavour = 'vllm' | 'vllm-llama' | 'llama.cpp' | 'tgi' | 'openai-chat' | 'mistral' | 'azure' | 'gemini' | 'ollama';

/** A server's error body for a status, an error type, a message (and Google's `details`). */
type ErrorBody = (status: number, type: string, message: string, options: OpenAiServerOptions, details?: unknown[]) => unknown;

/** An error a row answers with: status, type (Azure: its `code`) and message. */
export interface RowError {
  status: number;
  type: string;
  message: string;
  details?: unknown[];
}

/** A route: a path under the base path (or a pattern on the whole path), what it serves, and where the model is named. */
interface Route {
  path: string | RegExp;
  operation: 'chat' | 'completions';
  /** The body's `model`, or the pattern's first group (Azure's deployment). */
  model: 'body' | 'path';
}

/** How one vendor's server differs from the others (sources in the file's header). */
export interface Vendor {
  /** The header a key travels in and the prefix before the key. */
  keyHeader: { name: string; prefix: string };
  errorBody: ErrorBody;
  /**
   * What `/completions` is: vLLM's (echo with prompt log-probabilities), llama.cpp's (echo
   * refused with 500, log-probabilities of generated tokens only), TGI's (no echo, `logprobs`
   * null), a chat model's 404 (OpenAI), no such route (Mistral, Gemini), or vLLM-shaped on a
   * completions deployment and 400 OperationNotSupported on any other (Azure).
   */
  completions: 'vllm' | 'llama.cpp' | 'tgi' | 'chat-model' | 'none' | 'deployment' | 'engine';
  /** vLLM's engine: `--max-logprobs`, its `reasoning_effort` literal, Qwen3 thinking, `reasoning_content`. */
  vllmEngine: boolean;
  /** Echoed prompts start with Llama 3's BOS (vllm-llama). */
  bos: boolean;
  /** OpenAI's reasoning-model rules (o-series, gpt-5). */
  reasoningModels: boolean;
  /** `top_p` must lie in (0, 1) (TGI's validation). */
  topPOpen: boolean;
  /** The most chat `top_logprobs` taken, and the refusal above it (vLLM's is `--max-logprobs`, in vllm-completion.ts). */
  /**
   * The `top_logprobs` range: above `max` (and below `min`, where the server checks it) is
   * refused with this status and message; `always`: checked without `logprobs` too.
   */
  topLogprobs?: { max: number; min?: number; status: number; type: string; message: (k: number) => string; always?: boolean };
  /** How chat log-probability tokens are spelled: the chosen ones and the alternatives (family-chat.ts). */
  spelling: { chosen: ChatSpelling; top: ChatSpelling };
  /** Log-probability entries carry the token's id and bytes (llama.cpp). */
  tokenIds: boolean;
  /** The request fields the server takes; any other is refused by `extraForbidden`. Undefined: unknown fields are ignored. */
  fields?: readonly string[];
  extraForbidden?: (extra: [string, unknown][]) => { status: number; body: unknown };
  /** Models whose answer's `content` is a list of chunks: a `thinking` chunk, then the answer as a `text` chunk. */
  chunkedReasoning?: RegExp;
  /** The API's path prefix when the options give none (default `/v1`). */
  basePath?: string;
  /** Where chat and completions are served (default: `/chat/completions` and `/completions` under the base path, the model in the body). */
  routes?: readonly Route[];
  /** An unknown route is answered before an unknown model (a router in front of the handlers). */
  routeFirst?: boolean;
  /** The answer to a path it does not serve (default 404 `no route <path>`). */
  noRoute?: (path: string) => RowError;
  /** The answer to a missing or wrong key (default 401 "Incorrect API key provided"). */
  badKey?: RowError;
  /** The answer to a model (or deployment) that `models` does not list. */
  unknownModel?: (name: string) => RowError;
  /** A name's prefix the server drops (Gemini's `models/`). */
  modelPrefix?: string;
  /** The message of a request with no messages. */
  emptyMessages?: string;
  /** The most stop strings taken, and the 400 message above it. */
  maxStops?: { max: number; message: string };
  /** Log-probabilities and thinking are per model (`models`): Gemini's capability and thinking budget. */
  perModelCapabilities?: { noLogprobs: (model: string) => string; cannotStopThinking: string };
  /** The usage of a reasoning answer carries `completion_tokens_details.reasoning_tokens` (OpenAI). */
  reasoningDetails?: boolean;
  /** A content filter (`contentFilter` option): the refused prompt's 400 body and the per-category results. */
  contentFilter?: { promptRefusal: unknown; results: unknown };
  /** The `id` prefix of a chat answer (default `chatcmpl-`) and its `created`. */
  chatId?: { prefix: string; created: number };
}

/** OpenAI's error body; too many requests as OpenAI's rate limiter answers it (API docs, "Error codes": code rate_limit_exceeded). */
const openAiError: ErrorBody = (status, type, message) =>
  type === 'overloaded'
    ? { error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } }
    : { error: { message, type, code: status } };

const bearer = { name: 'authorization', prefix: 'Bearer ' };
const decoded = { chosen: 'decoded', top: 'decoded' } as const;
const text = { chosen: 'text', top: 'text' } as const;
const plain = { vllmEngine: false, bos: false, reasoningModels: false, topPOpen: false, tokenIds: false };

/** Google's status names by HTTP status (google.rpc.Code, as the Gemini API's "Troubleshooting" page lists them). */
const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** Google's error, array-wrapped as the OpenAI-compatible endpoint sends it (sources in the header). */
const googleError: ErrorBody = (status, _type, message, options, details) => {
  const wrap = (text: string, more?: unknown[]) => [
    { error: { code: status, message: text, status: GOOGLE_STATUS[status] ?? 'UNKNOWN', ...(more ? { details: more } : {}) } },
  ];
  if (status === 429 && options.quota === undefined) return wrap('Resource has been exhausted (e.g. check quota).');
  if (status === 429) {
    const delay = options.quota?.retryDelay ?? '59s';
    const metric = 'generativelanguage.googleapis.com/generate_content_free_tier_requests';
    return wrap(
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. \n' +
        `* Quota exceeded for metric: ${metric}, limit: 20, model: fake\nPlease retry in ${delay}.`,
      [
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [
            {
              quotaMetric: metric,
              quotaId: options.quota?.perDay ? 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' : 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
              quotaValue: '20',
            },
          ],
        },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: delay },
      ],
    );
  }
  if (status === 503) return wrap('The model is overloaded. Please try again later.');
  return wrap(message, details);
};

/** Azure's `content_filter_result(s)` as the content-filtering page shows it, violence filtered. */
const AZURE_FILTERED_VIOLENCE = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: true, severity: 'medium' },
};

/** The error codes Azure's front answers with itself (the rest are the model's, in OpenAI's body). */
const AZURE_OWN_CODES = new Set(['401', '404', 'DeploymentNotFound', 'OperationNotSupported']);

/** OpenAI's own API (sources in the header); Azure serves the same models behind its own routes. */
const OPENAI_CHAT: Vendor = {
  ...plain,
  keyHeader: bearer,
  errorBody: openAiError,
  completions: 'chat-model',
  reasoningModels: true,
  reasoningDetails: true,
  topLogprobs: {
    max: 20,
    status: 400,
    type: 'invalid_request_error',
    message: (k) => `Invalid 'top_logprobs': integer above maximum value. Expected a value <= 20, but got ${k} instead.`,
  },
  spelling: text,
};

/** Every vendor's differences, as data. */
export const VENDORS: Readonly<Record<OpenAiFlavour, Vendor>> = {
  vllm: { ...plain, keyHeader: bearer, errorBody: openAiError, completions: 'vllm', vllmEngine: true, spelling: decoded },
  'vllm-llama': { ...plain, keyHeader: bearer, errorBody: openAiError, completions: 'vllm', vllmEngine: true, bos: true, spelling: decoded },
  'llama.cpp': { ...plain, keyHeader: bearer, errorBody: openAiError, completions: 'llama.cpp', tokenIds: true, spelling: text },
  tgi: {
    ...plain,
    keyHeader: bearer,
    // TGI's own 429 at capacity is {"error": "Model is overloaded", "error_type": "overloaded"} (router/src/server.rs).
    errorBody: (_status, type, message) => ({ error: message, error_type: type }),
    completions: 'tgi',
    topPOpen: true,
    // TGI v3.3.7 router/src/lib.rs `ChatRequest::try_into_generate` passes `top_logprobs` as
    // `top_n_tokens` whether or not `logprobs` is set, and validation.rs `validate` caps it at
    // --max-top-n-tokens (default 5): a 422 either way.
    topLogprobs: {
      max: 5,
      status: 422,
      type: 'validation',
      message: (k) => `Input validation error: \`top_n_tokens\` must be >= 0 and <= 5. Given: ${k}`,
      always: true,
    },
    // TGI Messages: the chosen tokens are `details.tokens` (decoded in context, `▁` as " "),
    // the alternatives `details.top_tokens`, decoded one id at a time (a lone `▁` is "" for
    // Llama 2/Mistral): TGI db931fc router/src/lib.rs `ChatCompletionLogprobs::from((details.tokens,
    // details.top_tokens))`, server/text_generation_server/models/flash_causal_lm.py
    // `generate_token`: `toptoken_texts = self.tokenizer.batch_decode(top_token_ids, …)`.
    spelling: { chosen: 'text', top: 'decoded' },
  },
  'openai-chat': OPENAI_CHAT,
  mistral: {
    ...plain,
    keyHeader: bearer,
    // A wrong key is answered 401 `{"detail": "Unauthorized"}`, not the glossary's shape (quoted
    // from api.mistral.ai/v1 in agent0ai/agent-zero#539 and nextcloud/integration_openai#332).
    errorBody: (status, type, message) =>
      status === 429
        ? { object: 'error', message: 'Rate limit exceeded', type: 'rate_limited', param: null, code: '1300' }
        : status === 401
          ? { detail: 'Unauthorized' }
          : { object: 'error', message, type: status >= 500 ? 'server_error' : type, param: null, code: null },
    completions: 'none',
    spelling: text,
    // Magistral answers `content: [{type: "thinking", thinking: [{type: "text", text}]}, {type:
    // "text", text}]` (client-python @05629d2 (v2.5.1) docs/models/assistantmessagecontent.md,
    // thinkchunk.md, textchunk.md; docs.mistral.ai "Reasoning": Magistral always reasons).
    chunkedReasoning: /^magistral-/,
    fields: [
      'model',
      'temperature',
      'top_p',
      'max_tokens',
      'stream',
      'stop',
      'random_seed',
      'metadata',
      'messages',
      'response_format',
      'tools',
      'tool_choice',
      'presence_penalty',
      'frequency_penalty',
      'n',
      'prediction',
      'parallel_tool_calls',
      'reasoning_effort',
      'prompt_mode',
      'guardrails',
      'prompt_cache_key',
      'safe_prompt',
    ],
    extraForbidden: (extra) => ({
      status: 422,
      body: {
        object: 'error',
        message: { detail: extra.map(([field, input]) => ({ type: 'extra_forbidden', loc: ['body', field], msg: 'Extra inputs are not permitted', input })) },
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    }),
  },
  azure: {
    ...OPENAI_CHAT,
    keyHeader: { name: 'api-key', prefix: '' },
    // Azure's own answers (key, route, deployment, operation) are `{error: {code, message}}`; what
    // the model's OpenAI rules refuse (top_logprobs, empty messages) comes back in OpenAI's body
    // (Azure 400s quoted in owndev/Open-WebUI-Functions#136, microsoft/vscode-copilot-release#8483:
    // `{error: {message, type: "invalid_request_error", param, code}}`).
    errorBody: (status, code, message, options, details) =>
      AZURE_OWN_CODES.has(code) ? { error: { code, message } } : openAiError(status, code, message, options, details),
    completions: 'deployment',
    basePath: '',
    routes: [
      { path: /^\/openai\/deployments\/([^/]+)\/chat\/completions$/, operation: 'chat', model: 'path' },
      { path: /^\/openai\/deployments\/([^/]+)\/completions$/, operation: 'completions', model: 'path' },
      { path: /^\/openai\/v1\/chat\/completions$/, operation: 'chat', model: 'body' },
    ],
    noRoute: (path) => ({ status: 404, type: '404', message: `no route ${path} in this fake` }),
    badKey: {
      status: 401,
      type: '401',
      message:
        'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
    },
    unknownModel: () => ({
      status: 404,
      type: 'DeploymentNotFound',
      message:
        'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
    }),
    contentFilter: {
      promptRefusal: {
        error: {
          message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
          type: null,
          param: 'prompt',
          code: 'content_filter',
          status: 400,
          innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: AZURE_FILTERED_VIOLENCE },
        },
      },
      results: AZURE_FILTERED_VIOLENCE,
    },
  },
  // Ollama's OpenAI-compatible routes, read from ollama/ollama @fb30760 (2026-08-21): routes.go
  // `GenerateRoutes` puts middleware/openai.go `ChatMiddleware`/`CompletionsMiddleware` in front
  // of `ChatHandler`/`GenerateHandler` on /v1/chat/completions and /v1/completions; no key is
  // checked. A handler's `{"error": …}` becomes openai.go `NewError`: `{error: {message, type,
  // param: null, code: null}}`, type invalid_request_error (400), not_found_error (404), else
  // api_error. An unknown model is 404 "model 'x' not found" (routes.go `ChatHandler`); gin
  // answers an unknown route "404 page not found" first (plain text upstream; JSON here); empty
  // messages are 400 "[] is too short - 'messages'" (ChatMiddleware); `top_logprobs` outside
  // 0–20 is 400 "top_logprobs must be between 0 and 20" with or without `logprobs` (routes.go
  // `ChatHandler`). What the runner answers (template, tokens, thinking, queue) is the engine in
  // ollama-server.ts.
  ollama: {
    ...plain,
    keyHeader: bearer,
    errorBody: (status, _type, message) => ({
      error: { message, type: status === 400 ? 'invalid_request_error' : status === 404 ? 'not_found_error' : 'api_error', param: null, code: null },
    }),
    completions: 'engine',
    spelling: text,
    routeFirst: true,
    noRoute: () => ({ status: 404, type: '', message: '404 page not found' }),
    unknownModel: (name) => ({ status: 404, type: '', message: `model '${name}' not found` }),
    emptyMessages: "[] is too short - 'messages'",
    topLogprobs: { max: 20, min: 0, status: 400, type: '', message: () => 'top_logprobs must be between 0 and 20', always: true },
  },
  gemini: {
    ...plain,
    keyHeader: bearer,
    errorBody: googleError,
    completions: 'none',
    spelling: text,
    basePath: '/v1beta/openai',
    // Any route but chat (there is no legacy /completions): NOT_FOUND ("Troubleshooting": 404 NOT_FOUND).
    routes: [{ path: '/chat/completions', operation: 'chat', model: 'body' }],
    noRoute: (path) => ({ status: 404, type: '', message: `Requested entity was not found: ${path}` }),
    badKey: {
      status: 400,
      type: '',
      message: 'API key not valid. Please pass a valid API key.',
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }],
    },
    unknownModel: (id) => ({ status: 404, type: '', message: `models/${id} is not found for API version v1main, or is not supported for generateContent.` }),
    modelPrefix: 'models/',
    emptyMessages: '* GenerateContentRequest.contents: contents is not specified',
    maxStops: { max: 5, message: 'Request contains an invalid argument.' },
    // With `logprobs`, top_logprobs outside 0–20 is the generic 400 (as gemini-server.ts checked it before the rows).
    topLogprobs: { max: 20, min: 0, status: 400, type: '', message: () => 'Request contains an invalid argument.' },
    perModelCapabilities: { noLogprobs: (id) => `Logprobs is not enabled for models/${id}`, cannotStopThinking: 'Request contains an invalid argument.' },
    chatId: { prefix: 'gemini-', created: 1_767_225_600 },
  },
};

export interface OpenAiServerOptions extends FaultOptions {
  /** Which server to behave as (default `vllm`). */
  flavour?: OpenAiFlavour;
  /** vllm-llama: report tokens as byte-level strings (`Ġ3`) instead of decoded text. */
  byteLevel?: boolean;
  /** Path prefix of the API (default `/v1`); `url` ends with it. */
  basePath?: string;
  /** When set, requests for any other model get 404 model_not_found. */
  model?: string;
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. */
  apiKey?: string;
  /** The generated text for a prompt (chat: system and messages joined by blank lines). Default "ok". */
  answer?: (prompt: string, body: Record<string, unknown>) => string;
  /** Chat prompts the model refuses: `content: null`, `finish_reason: "content_filter"`. */
  refuse?: (prompt: string) => boolean;
  /** log P(token | context) for echoed prompt tokens and next-token alternatives. Default -1 for every token. */
  logprob?: LogprobFn;
  /** Answer `max_tokens: 0` with 400, like servers that need at least one new token. */
  rejectMaxTokensZero?: boolean;
  /** Leave `text_offset` out of logprobs, like some servers do. */
  omitTextOffset?: boolean;
  /**
   * vllm flavours: tokenize `/completions` prompts with this real model tokenizer (BOS, token
   * strings, usage exactly as vLLM reports them; see vllm-completion.ts) instead of the toy one.
   * Every flavour: chat answers are generated as that model generates them (family-chat.ts:
   * Mistral's " 4" is `▁` then `4`), spelled as the flavour's server spells tokens (vLLM:
   * per-id `decode`, a lone `▁` as ""; llama.cpp and TGI: the piece text, `▁` as " ").
   */
  tokenizer?: TokenizerName;
  /** With `tokenizer`: how token strings are spelled (vLLM version dependent; default `decoded`). */
  tokenStrings?: TokenStrings;
  /** vllm flavours: the server's `--max-logprobs` (default 20, as vLLM's). */
  maxLogprobs?: number;
  /**
   * vllm flavours: a thinking model (Qwen3 under `--reasoning-parser qwen3`) that thinks this
   * many tokens unless `chat_template_kwargs.enable_thinking` is false.
   */
  thinks?: number;
  /** openai-chat reasoning models: reasoning tokens spent at each effort (default none). */
  reasoning?: Partial<Record<'none' | 'minimal' | 'low' | 'medium' | 'high', number>>;
  /**
   * The first this many chat answers fail while generating: the text so far (its first token)
   * with `finish_reason: "error"`, status 200 — a value Mistral's API lists beside stop, length,
   * model_length and tool_calls (mistralai/client-python @05629d2 (v2.5.1)
   * docs/models/chatcompletionchoicefinishreason.md).
   */
  errorFinishes?: number;
  /**
   * The models (Azure: deployments) the server serves, by the name a request gives; any other
   * is the row's `unknownModel`. Each may serve another model (`serves`: an Azure deployment's
   * OpenAI model), answer `/completions` (an Azure completions deployment), and, on a row with
   * `perModelCapabilities` (Gemini), have log-probabilities and a thinking budget.
   */
  models?: Record<string, ServedModel>;
  /** The row's content filter: prompts (any message) and answers it filters (Azure). */
  contentFilter?: { prompt?: RegExp; completion?: RegExp };
  /** Gemini: a 429 in the native quota form, with this `RetryInfo.retryDelay` and the per-day quota when `perDay`. */
  quota?: { retryDelay?: string; perDay?: boolean };
  /** Gemini: `completion_tokens` without the thoughts, `total_tokens` with them. */
  thoughtsInTotalOnly?: boolean;
  /** A server's own generation behind the row's wire (Ollama's runner, ollama-server.ts). */
  engine?: Engine;
}

/** What a row's server does itself behind the OpenAI wire, where it is more than a toy model (Ollama). */
export interface Engine {
  /** Other routes the server answers (Ollama's `GET /api/version`). */
  get?: (path: string) => unknown;
  /** Waits for the model; a refusal when the server will not take the request now (Ollama's queue). */
  admit?: () => Promise<RowError | undefined>;
  /** Answers a validated chat request (`k`: its `top_logprobs`); `n` is this request's number. */
  chat: (body: Record<string, unknown>, k: number, n: number) => { status: number; body: unknown };
  /** Answers a completions request. */
  completion: (body: Record<string, unknown>, n: number) => { status: number; body: unknown };
}

/** One model a server serves (see `models`). */
export interface ServedModel {
  /** The model behind this name (an Azure deployment's), as the answer's `model` names it. */
  serves?: string;
  /** `/completions` is served (an Azure completions deployment); else 400 OperationNotSupported. */
  completions?: boolean;
  /** Log-probabilities are enabled (default false, as on Gemini 2.5 models). */
  logprobs?: boolean;
  /** Tokens the model thinks before answering (default 0). */
  thinking?: number;
  /** `reasoning_effort: "none"` turns the thinking off (Gemini 2.5 Flash and Flash-Lite). */
  canDisableThinking?: boolean;
  /** Tokens thought at `reasoning_effort: "low"` (default `thinking`). */
  lowThinking?: number;
}

/** openai-openapi ReasoningEffort, per model family (see the header). */
function effortsOf(model: string): string[] {
  if (/^o[1-9]/.test(model)) return ['low', 'medium', 'high'];
  if (/^gpt-5\.[1-9]/.test(model)) return ['none', 'low', 'medium', 'high'];
  return ['minimal', 'low', 'medium', 'high'];
}

export interface OpenAiServer extends FakeServer {
  /** Base URL including the base path, e.g. http://127.0.0.1:41234/v1 */
  url: string;
}

const BOS = '<|begin_of_text|>';
/** Candidates for the next token's top-k: the digits with and without a space, and filler. */
const CANDIDATES = ['1', '2', '3', '4', '5', ' 1', ' 2', ' 3', ' 4', ' 5', 'Il', 'La', '\n', ' ', 'Non'];

/** GPT-2's byte-level alphabet for the characters the fakes emit in tokens. */
function byteLevel(text: string): string {
  return text.replaceAll(' ', 'Ġ').replaceAll('\n', 'Ċ').replaceAll('\t', 'ĉ');
}

/** Starts the fake on 127.0.0.1 with a free port. */
export async function startOpenAiServer(options: OpenAiServerOptions = {}): Promise<OpenAiServer> {
  const vendor = VENDORS[options.flavour ?? 'vllm'];
  const basePath = options.basePath ?? vendor.basePath ?? '/v1';
  const routes: readonly Route[] = vendor.routes ?? [
    { path: '/chat/completions', operation: 'chat', model: 'body' },
    { path: '/completions', operation: 'completions', model: 'body' },
  ];
  const answer = options.answer ?? (() => 'ok');
  const logprob = options.logprob ?? flatLogprob;
  let errorFinishes = options.errorFinishes ?? 0;

  const error = (status: number, type: string, message: string, details?: unknown[]) => ({
    status,
    headers: {},
    body: vendor.errorBody(status, type, message, options, details),
  });
  const rowError = (e: RowError) => error(e.status, e.type, e.message, e.details);

  /** The route a path takes, and the model (or deployment) name the request gives. */
  function route(path: string, body: Record<string, unknown>): { operation: Route['operation']; name: string } | undefined {
    for (const r of routes) {
      const match = typeof r.path === 'string' ? (path === `${basePath}${r.path}` ? [path] : null) : r.path.exec(path);
      if (!match) continue;
      const name = r.model === 'path' ? decodeURIComponent(match[1] ?? '') : String(body.model ?? '');
      return { operation: r.operation, name: vendor.modelPrefix && name.startsWith(vendor.modelPrefix) ? name.slice(vendor.modelPrefix.length) : name };
    }
    return undefined;
  }

  const server = await startFakeServer(
    async (req: RecordedRequest) => {
      if (options.apiKey !== undefined && req.headers[vendor.keyHeader.name] !== `${vendor.keyHeader.prefix}${options.apiKey}`) {
        return vendor.badKey ? rowError(vendor.badKey) : error(401, 'invalid_request_error', 'Incorrect API key provided');
      }
      // Azure's dated route carries `?api-version=`; routes match the path alone.
      const path = req.path.split('?')[0] ?? '';
      const sent = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
      const extra = req.method === 'GET' ? options.engine?.get?.(path) : undefined;
      if (extra !== undefined) return { status: 200, headers: {}, body: extra };
      if (req.method === 'GET' && path === `${basePath}/models`) {
        return { status: 200, body: { object: 'list', data: [{ id: options.model ?? 'fake-model', object: 'model' }] } };
      }
      if (req.method !== 'POST') return vendor.noRoute ? rowError(vendor.noRoute(path)) : error(405, 'invalid_request_error', 'method not allowed');
      if (vendor.routeFirst && !route(path, sent)) return vendor.noRoute ? rowError(vendor.noRoute(path)) : error(404, 'NotFoundError', `no route ${path}`);
      if (options.model !== undefined && sent.model !== options.model) {
        if (vendor.unknownModel) return rowError(vendor.unknownModel(String(sent.model)));
        return error(404, 'NotFoundError', `The model \`${String(sent.model)}\` does not exist.`);
      }
      const found = route(path, sent);
      if (!found) return vendor.noRoute ? rowError(vendor.noRoute(path)) : error(404, 'NotFoundError', `no route ${path}`);
      const refused = await options.engine?.admit?.();
      if (refused) return rowError(refused);
      const served = options.models?.[found.name];
      if (options.models && !served) {
        return vendor.unknownModel ? rowError(vendor.unknownModel(found.name)) : error(404, 'NotFoundError', `The model \`${found.name}\` does not exist.`);
      }
      // The request as the model sees it (an Azure deployment's model, Gemini's name without
      // `models/`); the recorded request keeps what was sent.
      const body = options.models ? { ...sent, model: served?.serves ?? found.name } : sent;
      if (found.operation === 'completions' && vendor.completions === 'deployment' && !served?.completions) {
        return error(400, 'OperationNotSupported', `The completion operation does not work with the specified model, ${String(body.model)}.`);
      }
      if (vendor.contentFilter && options.contentFilter?.prompt?.test(JSON.stringify(body.messages ?? body.prompt ?? ''))) {
        return { status: 400, headers: {}, body: vendor.contentFilter.promptRefusal };
      }
      // The request model validates the chat body; an unknown route is a 404 first.
      if (vendor.fields && vendor.extraForbidden && found.operation === 'chat') {
        const allowed = vendor.fields;
        const extra = Object.entries(body).filter(([field]) => !allowed.includes(field));
        if (extra.length > 0) return { headers: {}, ...vendor.extraForbidden(extra) };
      }
      if (vendor.topPOpen && body.top_p !== undefined && body.top_p !== null) {
        // TGI v3.3.7 router/src/validation.rs `validate`: top_p must be in (0, 1) — the
        // Messages API passes the request's top_p through (server.rs chat_completions/completions).
        const topP = Number(body.top_p);
        if (!(topP > 0 && topP < 1)) return error(422, 'validation', 'Input validation error: `top_p` must be > 0.0 and < 1.0');
      }
      if (vendor.reasoningModels && /^(o[1-9]|gpt-5(?!-chat))/.test(String(body.model))) {
        // OpenAI reasoning models (400 invalid_request_error, code unsupported_parameter, as the
        // API answers them): max_tokens → max_completion_tokens; no temperature other than 1, no top_p, no stop.
        if (body.max_tokens !== undefined)
          return unsupported('max_tokens', "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.");
        for (const field of ['temperature', 'top_p', 'stop', 'logprobs'] as const) {
          if (body[field] !== undefined && !(field !== 'stop' && field !== 'logprobs' && body[field] === 1))
            return unsupported(field, `Unsupported parameter: '${field}' is not supported with this model.`);
        }
        const model = String(body.model);
        const efforts = effortsOf(model);
        if (body.reasoning_effort !== undefined && !efforts.includes(String(body.reasoning_effort))) {
          const list = efforts.map((e) => `'${e}'`);
          return {
            status: 400,
            headers: {},
            body: {
              error: {
                message: `Unsupported value: '${String(body.reasoning_effort)}' is not supported with the '${model}' model. Supported values are: ${list.slice(0, -1).join(', ')}, and ${list.at(-1)}.`,
                type: 'invalid_request_error',
                param: 'reasoning_effort',
                code: 'unsupported_value',
              },
            },
          };
        }
        const effort = (body.reasoning_effort ?? (efforts.includes('none') ? 'none' : 'medium')) as keyof NonNullable<OpenAiServerOptions['reasoning']>;
        thinking.set(body, options.reasoning?.[effort] ?? 0);
      }
      if (found.operation === 'chat') return filtered(chat(body, served));
      if (vendor.completions === 'none') return error(404, 'invalid_request_error', `no route ${path}`);
      if (vendor.completions === 'chat-model') {
        return error(
          404,
          'invalid_request_error',
          'This is a chat model and not supported in the v1/completions endpoint. Did you mean to use v1/chat/completions?',
        );
      }
      return completion(body);
    },
    (status, type, message) => error(status, type, message),
    options,
  );

  /** The row's content filter on an answer: a filtered choice has no content, finish_reason content_filter and its per-category results. */
  function filtered<T extends { status: number; body: unknown }>(out: T): T {
    const choice = (out.body as { choices?: { message: { content?: unknown }; finish_reason?: string }[] } | undefined)?.choices?.[0];
    const content = choice?.message.content;
    if (!vendor.contentFilter || !choice || typeof content !== 'string' || !options.contentFilter?.completion?.test(content)) return out;
    delete choice.message.content;
    choice.finish_reason = 'content_filter';
    Object.assign(choice, { content_filter_results: vendor.contentFilter.results });
    return out;
  }

  function unsupported(param: string, message: string) {
    return { status: 400, headers: {}, body: { error: { message, type: 'invalid_request_error', param, code: 'unsupported_parameter' } } };
  }

  function stops(body: Record<string, unknown>): string[] {
    const raw = Array.isArray(body.stop) ? (body.stop as unknown[]).map(String) : typeof body.stop === 'string' ? [body.stop] : [];
    return raw.filter((s) => s !== '');
  }

  function generated(prompt: string, body: Record<string, unknown>): { text: string; tokens: string[]; finish: string } {
    let all = tokenize(answer(prompt, body));
    let stopped = false;
    const text = all.join('');
    for (const stop of stops(body)) {
      const at = text.indexOf(stop);
      if (at >= 0) {
        all = tokenize(text.slice(0, at));
        stopped = true;
      }
    }
    const max = typeof body.max_tokens === 'number' ? body.max_tokens : typeof body.max_completion_tokens === 'number' ? body.max_completion_tokens : Infinity;
    // Reasoning comes out of the limit; with no limit the whole answer follows it.
    const tokens = all.slice(0, Math.max(0, max - reasoningOf(body)));
    return { text: tokens.join(''), tokens, finish: tokens.length < all.length && !stopped ? 'length' : 'stop' };
  }

  /** The top-k alternatives of the token after `context`, best first. */
  function topAfter(context: string, k: number): { token: string; logprob: number }[] {
    return CANDIDATES.map((token) => ({ token, logprob: logprob(context, token) }))
      .sort((a, b) => b.logprob - a.logprob)
      .slice(0, k);
  }

  function chat(body: Record<string, unknown>, served: ServedModel | undefined) {
    const messages = Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : [];
    if (messages.length === 0) return error(400, vendor.emptyMessages ? '' : 'BadRequestError', vendor.emptyMessages ?? 'messages must not be empty');
    const prompt = messages.map((m) => String(m.content ?? '')).join('\n\n');
    const wantLogprobs = body.logprobs === true;
    const k = typeof body.top_logprobs === 'number' ? body.top_logprobs : 0;
    const stopList = Array.isArray(body.stop) ? body.stop : typeof body.stop === 'string' ? [body.stop] : [];
    if (vendor.maxStops && stopList.length > vendor.maxStops.max) return error(400, '', vendor.maxStops.message);
    const perModel = vendor.perModelCapabilities;
    if (perModel && wantLogprobs && !served?.logprobs) return error(400, '', perModel.noLogprobs(String(body.model)));
    if (perModel) {
      // Gemini: thinking within max_tokens; "none" off where the model can, "low" its lowest budget.
      const effort = body.reasoning_effort;
      const budget = served?.thinking ?? 0;
      if (effort === 'none' && budget > 0 && !served?.canDisableThinking) return error(400, '', perModel.cannotStopThinking);
      thinking.set(body, effort === 'none' ? 0 : effort === 'low' ? Math.min(budget, served?.lowThinking ?? budget) : budget);
    }
    const cap = vendor.topLogprobs;
    // A negative count is refused only where the server checks a lower bound (Ollama); TGI's
    // `top_logprobs` is a u32 (lib.rs ChatRequest), so -1 never reaches its validation message.
    if (cap && (cap.always || wantLogprobs) && (k > cap.max || (cap.min !== undefined && k < cap.min))) return error(cap.status, cap.type, cap.message(k));
    if (options.engine) return options.engine.chat(body, k, server.requests.length);
    // vLLM chat asks the engine for `top_logprobs` only with `logprobs: true`; input_processor.py
    // `_validate_logprobs` refuses more than --max-logprobs (see vllm-completion.ts).
    const vllmServer = vendor.vllmEngine;
    // vllm/entrypoints/openai/protocol.py @0052bed ChatCompletionRequest: `reasoning_effort:
    // Optional[Literal["low", "medium", "high"]]`, a pydantic error the server answers 400
    // (its RequestValidationError handler: the error list as the message, naming the field).
    if (vllmServer && body.reasoning_effort !== undefined && !['low', 'medium', 'high'].includes(String(body.reasoning_effort))) {
      return error(
        400,
        'BadRequestError',
        `[{'type': 'literal_error', 'loc': ('body', 'reasoning_effort'), 'msg': "Input should be 'low', 'medium' or 'high'", 'input': '${String(body.reasoning_effort)}'}]`,
      );
    }
    // vLLM docs, "Reasoning Outputs" (v0.26.0): Qwen3 thinks by default, not with
    // chat_template_kwargs {enable_thinking: false}; the qwen3 parser puts the thinking in
    // `reasoning_content`, and it counts against max_tokens.
    if (vllmServer && options.thinks !== undefined) {
      const kwargs = (body.chat_template_kwargs ?? {}) as { enable_thinking?: unknown };
      if (kwargs.enable_thinking !== false) thinking.set(body, options.thinks);
    }
    if (vllmServer && wantLogprobs) {
      const refused = vllmRefusal({ logprobs: k }, options.maxLogprobs ?? VLLM_MAX_LOGPROBS);
      if (refused) return refused;
    }
    const promptTokens = tokenize(prompt).length;
    const chatCompletion = (choice: Record<string, unknown>, counts: Record<string, unknown>) => ({
      status: 200,
      body: {
        id: `${vendor.chatId?.prefix ?? 'chatcmpl-'}${server.requests.length}`,
        object: 'chat.completion',
        created: vendor.chatId?.created ?? 1_700_000_000,
        model: body.model,
        choices: [choice],
        usage: counts,
      },
    });
    if (options.refuse?.(prompt)) {
      return chatCompletion(
        {
          index: 0,
          message: { role: 'assistant', content: null, refusal: "I'm sorry, I can't help with that." },
          finish_reason: 'content_filter',
          logprobs: null,
        },
        usage(promptTokens, 9),
      );
    }
    const context = `${prompt}\n\n`;
    if (options.tokenizer) {
      const max = typeof body.max_tokens === 'number' ? body.max_tokens : typeof body.max_completion_tokens === 'number' ? body.max_completion_tokens : 64;
      const family = familyChat(options.tokenizer, context, answer(prompt, body), max, Math.max(k, 0), logprob, vendor.spelling.chosen, vendor.spelling.top);
      const content = family.positions.map((p) => p.text).join('');
      return chatCompletion(
        {
          index: 0,
          message: { role: 'assistant', content },
          finish_reason: family.finish,
          ...(wantLogprobs
            ? {
                logprobs: {
                  content: family.positions.map((p, i) => {
                    const entry = { token: p.token, logprob: p.logprob, top_logprobs: k > 0 ? p.top.map((t) => ({ token: t.token, logprob: t.logprob })) : [] };
                    return vendor.tokenIds ? { id: family.ids[i], ...entry, bytes: [...Buffer.from(p.token)] } : entry;
                  }),
                },
              }
            : {}),
        },
        usage(promptTokens, family.ids.length),
      );
    }
    const out = generated(prompt, body);
    if (errorFinishes > 0) {
      errorFinishes -= 1;
      const part = out.tokens.slice(0, 1);
      return chatCompletion({ index: 0, message: { role: 'assistant', content: part.join('') }, finish_reason: 'error' }, usage(promptTokens, part.length));
    }
    const logprobs = wantLogprobs
      ? {
          content: out.tokens.map((token, i) => {
            const before = context + out.tokens.slice(0, i).join('');
            const top = topAfter(before, Math.max(k, 0));
            const entry = { token, logprob: logprob(before, token), ...(k > 0 ? { top_logprobs: top } : { top_logprobs: [] }) };
            return vendor.tokenIds ? { id: tokenId(token), ...entry, bytes: [...Buffer.from(token)] } : entry;
          }),
        }
      : null;
    const reasoning = reasoningOf(body);
    const counts = options.thoughtsInTotalOnly
      ? { prompt_tokens: promptTokens, completion_tokens: out.tokens.length, total_tokens: promptTokens + reasoning + out.tokens.length }
      : usage(promptTokens, out.tokens.length + reasoning);
    if (vendor.chunkedReasoning?.test(String(body.model))) {
      const trace = 'Let me think about it.';
      const content = [
        { type: 'thinking', thinking: [{ type: 'text', text: trace }] },
        { type: 'text', text: out.text },
      ];
      return chatCompletion(
        { index: 0, message: { role: 'assistant', content }, finish_reason: out.finish },
        usage(promptTokens, out.tokens.length + tokenize(trace).length),
      );
    }
    return chatCompletion(
      {
        index: 0,
        message: { role: 'assistant', content: out.text, ...(vllmServer && reasoning > 0 ? { reasoning_content: 'Okay, let me think.' } : {}) },
        finish_reason: reasoning > 0 && out.tokens.length === 0 ? 'length' : out.finish,
        ...(logprobs ? { logprobs } : {}),
      },
      thinking.has(body) && vendor.reasoningDetails ? { ...counts, completion_tokens_details: { reasoning_tokens: reasoning } } : counts,
    );
  }

  function completion(body: Record<string, unknown>) {
    if (options.engine) return options.engine.completion(body, server.requests.length);
    if (typeof body.prompt !== 'string') return error(400, 'BadRequestError', 'prompt must be a string');
    if (options.rejectMaxTokensZero && body.max_tokens === 0) {
      return error(400, 'BadRequestError', 'max_tokens must be at least 1, got 0.');
    }
    if (vendor.completions === 'llama.cpp' && body.echo === true) {
      // llama.cpp tools/server/server-common.cpp `oaicompat_completion_params_parse` throws
      // std::runtime_error("Only no echo is supported"); server.cpp's ex_wrapper answers a
      // runtime_error with 500 and type server_error.
      return { status: 500, headers: {}, body: { error: { code: 500, message: 'Only no echo is supported', type: 'server_error' } } };
    }
    const prompt = body.prompt;
    const vllm = vendor.completions === 'vllm' || vendor.completions === 'deployment';
    if (vllm) {
      const refused = vllmRefusal(body, options.maxLogprobs ?? VLLM_MAX_LOGPROBS);
      if (refused) return refused;
    }
    const out = generated(prompt, body);
    if (vllm && options.tokenizer) {
      const whole = generated(prompt, { ...body, max_tokens: undefined }).text;
      const maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : 16;
      const logprobs = typeof body.logprobs === 'number' ? body.logprobs : undefined;
      return {
        status: 200,
        body: {
          ...vllmCompletion({
            tokenizer: options.tokenizer,
            strings: options.tokenStrings ?? 'decoded',
            prompt,
            answer: whole,
            maxTokens,
            echo: body.echo === true,
            logprobs,
            logprob,
            candidates: CANDIDATES,
          }),
          model: body.model,
        },
      };
    }
    const echo = vllm && body.echo === true;
    const promptTokens = scoreText(prompt, logprob);
    let logprobs: unknown = null;
    if (typeof body.logprobs === 'number' && vllm) logprobs = vllmLogprobs(prompt, promptTokens, out.tokens, echo, body.logprobs);
    const nProbs = typeof body.logprobs === 'number' ? body.logprobs : 0;
    if (vendor.completions === 'llama.cpp' && nProbs > 0 && out.tokens.length > 0) {
      // llama.cpp tools/server/server-task.cpp `params_from_json_cmpl` takes `logprobs` as n_probs;
      // `to_json_oaicompat` answers `{content: probs_vector_to_json(...)}` (null with no probs):
      // generated tokens only, each with its n_probs best alternatives. No echo.
      const entry = (token: string, lp: number) => ({ id: tokenId(token), token, bytes: [...Buffer.from(token)], logprob: lp });
      logprobs = {
        content: out.tokens.map((token, i) => {
          const before = prompt + out.tokens.slice(0, i).join('');
          return { ...entry(token, logprob(before, token)), top_logprobs: topAfter(before, nProbs).map((t) => entry(t.token, t.logprob)) };
        }),
      };
    }
    const bos = vendor.bos ? 1 : 0;
    return {
      status: 200,
      body: {
        id: `cmpl-${server.requests.length}`,
        object: 'text_completion',
        created: 1_700_000_000,
        model: body.model,
        choices: [{ index: 0, text: (echo ? prompt : '') + out.text, logprobs, finish_reason: out.finish }],
        // request_output_to_completion_response (vllm serving.py @cc139d8) counts the token the
        // engine generates for echo with max_tokens 0 (to_sampling_params asks for one).
        usage: usage(promptTokens.length + bos, echo && body.max_tokens === 0 ? 1 : out.tokens.length),
      },
    };
  }

  /**
   * vLLM's `_create_completion_logprobs` (serving.py @cc139d8): offsets are a running sum of the
   * token strings' lengths from 0 (no initial offset in a non-streamed answer); `top_logprobs`
   * keeps the first `logprobs + 1` entries of a dict holding the token first, then the best
   * alternatives, keyed by string.
   */
  function vllmLogprobs(prompt: string, promptTokens: ReturnType<typeof scoreText>, generatedTokens: string[], echo: boolean, k: number) {
    const echoed = echo ? promptTokens.map((t) => ({ text: t.text, logprob: t.logprob })) : [];
    if (echo && vendor.bos) {
      echoed.unshift({ text: BOS, logprob: null });
      // After a BOS the first real token is scored too.
      if (echoed[1]) echoed[1] = { text: echoed[1].text, logprob: logprob('', echoed[1].text) };
    }
    const gen = generatedTokens.map((text, i) => ({ text, logprob: logprob(prompt + generatedTokens.slice(0, i).join(''), text) }));
    const spell = (text: string) => (vendor.bos && options.byteLevel && text !== BOS ? byteLevel(text) : text);
    // The text before each shown token (BOS adds none), for its alternatives.
    const contexts: string[] = [];
    let seen = echo ? '' : prompt;
    for (const t of [...echoed, ...gen]) {
      contexts.push(seen);
      if (t.text !== BOS) seen += t.text;
    }
    const all = [...echoed, ...gen].map((t) => ({ ...t, text: spell(t.text) }));
    let offset = 0;
    const offsets = all.map((t) => {
      const here = offset;
      offset += t.text.length;
      return here;
    });
    return {
      tokens: all.map((t) => t.text),
      token_logprobs: all.map((t) => t.logprob),
      top_logprobs: all.map((t, i) => {
        if (t.logprob === null) return null;
        const entries: [string, number][] = [[t.text, t.logprob]];
        for (const alt of topAfter(contexts[i] ?? '', k)) {
          if (entries.length > k) break;
          if (!entries.some(([s]) => s === spell(alt.token))) entries.push([spell(alt.token), alt.logprob]);
        }
        return Object.fromEntries(entries);
      }),
      ...(options.omitTextOffset ? {} : { text_offset: offsets }),
    };
  }

  return { ...server, url: `${server.url}${basePath}` };
}

/** Reasoning tokens a request's reasoning model spends (set when the request is validated). */
const thinking = new WeakMap<object, number>();

/** Reasoning tokens a reasoning model spends first, within its max_completion_tokens. */
function reasoningOf(body: Record<string, unknown>): number {
  const spent = thinking.get(body) ?? 0;
  const max = typeof body.max_completion_tokens === 'number' ? body.max_completion_tokens : typeof body.max_tokens === 'number' ? body.max_tokens : Infinity;
  return Math.min(spent, max);
}

function usage(prompt: number, completion: number) {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

export interface AzureOpenAiServerOptions extends Pick<OpenAiServerOptions, 'answer' | 'logprob' | 'refuse'> {
  /** The deployment's content filter (`contentFilter`). */
  filter?: OpenAiServerOptions['contentFilter'];
  /** The resource's key (the `api-key` header). */
  apiKey: string;
  /** Deployment name → the OpenAI model it serves (chat). */
  deployments: Record<string, string>;
  /** Deployment name → the completions model it serves (`/completions` with echo). */
  completionDeployments?: Record<string, string>;
}

export interface AzureOpenAiServer extends OpenAiServer {
  /** The resource endpoint, e.g. http://127.0.0.1:41234 (stands for https://<resource>.openai.azure.com). */
  url: string;
  requests: (RecordedRequest & { body: Record<string, unknown> })[];
}

/** The `azure` row, its deployments as `models`. */
export async function startAzureOpenAiServer(options: AzureOpenAiServerOptions): Promise<AzureOpenAiServer> {
  const { deployments, completionDeployments = {}, filter, ...rest } = options;
  const models: Record<string, ServedModel> = {
    ...Object.fromEntries(Object.entries(deployments).map(([name, model]) => [name, { serves: model }])),
    ...Object.fromEntries(Object.entries(completionDeployments).map(([name, model]) => [name, { serves: model, completions: true }])),
  };
  return (await startOpenAiServer({ ...rest, flavour: 'azure', models, ...(filter ? { contentFilter: filter } : {}) })) as AzureOpenAiServer;
}

export type GeminiModel = Pick<ServedModel, 'logprobs' | 'thinking' | 'canDisableThinking' | 'lowThinking'>;

export interface GeminiServerOptions extends FaultOptions, Pick<OpenAiServerOptions, 'answer' | 'logprob' | 'thoughtsInTotalOnly'> {
  apiKey: string;
  /** The models served, by id. */
  models: Record<string, GeminiModel>;
  /** A 429 in the native quota form with this `RetryInfo.retryDelay` (default: page-assist#406's body, no details). */
  retryDelay?: string;
  /** The quota 429 is the per-day one (with `retryDelay`'s form). */
  perDay?: boolean;
}

/** The base URL ends in /v1beta/openai (what `gemini:<base-url>#<model>` takes). */
export type GeminiServer = OpenAiServer;

/** The `gemini` row. */
export async function startGeminiServer(options: GeminiServerOptions): Promise<GeminiServer> {
  const { retryDelay, perDay, ...rest } = options;
  const quota = retryDelay !== undefined || perDay ? { ...(retryDelay !== undefined ? { retryDelay } : {}), ...(perDay ? { perDay } : {}) } : undefined;
  return startOpenAiServer({ ...rest, flavour: 'gemini', ...(quota ? { quota } : {}) });
}
