/**
 * Turning what went wrong on the wire into a `ProviderError` that says whether a later
 * attempt may succeed. One policy for all three providers: throttling, 5xx, timeouts,
 * connection resets and malformed bodies are retryable; 400/401/403/404 fail fast.
 */
import { ProviderError } from '#core/errors.ts';
import type { TokenUsage } from '#core/types.ts';

/** A failed attempt; `retryAfterMs` carries the server's Retry-After when it sent one. */
export class ProviderCallError extends ProviderError {
  override name = 'ProviderCallError';
  readonly retryAfterMs?: number;
  /** Attempts spent when this error ends a call (set by the call policy). */
  readonly attempts?: number;
  /** The server said "slow down" (429, ThrottlingException): the call policy backs its concurrency off. */
  override readonly throttled: boolean;
  /** The error body's code or type (`content_filter`, `insufficient_quota`), when it had one. */
  readonly code?: string;
  /**
   * Capacity is on its way (an inference component scaling out from zero): retried under the
   * throttling wait budget, like throttling, without backing the concurrency off.
   */
  readonly awaitingCapacity: boolean;
  constructor(
    message: string,
    opts: {
      retryable: boolean;
      status?: number;
      retryAfterMs?: number;
      attempts?: number;
      cause?: unknown;
      throttled?: boolean;
      billed?: TokenUsage;
      code?: string;
      awaitingCapacity?: boolean;
    },
  ) {
    super(message, opts);
    if (opts.code !== undefined) this.code = opts.code;
    this.awaitingCapacity = opts.awaitingCapacity ?? false;
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
    if (opts.attempts !== undefined) this.attempts = opts.attempts;
    this.throttled = opts.throttled ?? opts.status === 429;
  }
}

/**
 * A billed answer that will be the same on every attempt (a refusal, a server lacking a
 * feature): recorded on first sight with its reason, never retried; its tokens still count.
 */
export function deterministic(what: string, billed?: TokenUsage): ProviderCallError {
  return new ProviderCallError(truncate(what), { retryable: false, ...(billed ? { billed } : {}) });
}

/**
 * Statuses worth another attempt. 424: text-generation-inference's `InferError::GenerationError`
 * (a failure inside the model shard, e.g. CUDA out of memory, router/src/server.rs
 * `impl From<InferError> for (StatusCode, Json<ErrorResponse>)` @ v3.3.7 → FAILED_DEPENDENCY),
 * which the next attempt usually does not meet; inside a stream the same error arrives as an
 * event and is handled there. 409: a conflict the API asks to retry (OpenAI's and Anthropic's
 * SDKs retry 409 — openai-python `_base_client.py` `_should_retry`: "Retry on lock timeouts").
 */
const RETRYABLE_STATUS = new Set([408, 409, 424, 425, 429, 500, 502, 503, 504, 529]);

/** AWS error names that mean "slow down" or "try again"; every other service error fails fast. */
const RETRYABLE_AWS_NAMES = new Set([
  'ThrottlingException',
  'TooManyRequestsException',
  'ServiceUnavailableException',
  'ServiceUnavailable',
  'InternalServerException',
  'InternalFailure',
  'InternalDependencyException',
  'ModelNotReadyException',
  'ModelTimeoutException',
  'RequestTimeout',
  'RequestTimeoutException',
  // InvokeEndpointWithResponseStream's in-stream errors (SageMaker runtime API reference,
  // "InvokeEndpointWithResponseStream" Errors): "The stream processing failed because of an
  // unknown error … Try your request again" and "An error occurred while streaming the
  // response body" (ModelInvocationTimeExceeded, StreamBroken).
  'InternalStreamFailure',
  'ModelStreamError',
]);

/**
 * Error types/codes in a 429 body that no wait will fix. OpenAI (API docs, "Error codes":
 * 429 "You exceeded your current quota, please check your plan and billing details"): the
 * type `insufficient_quota`, whose `error.code` may name the cause (`credit_balance_exhausted`,
 * `organization_spend_limit_exceeded`, `project_spend_limit_exceeded`,
 * `organization_usage_limit_exceeded`) — the account is out of credit, not over a rate.
 */
const PERMANENT_CODES = new Set([
  // Anthropic (API docs, "Errors"): a 429 whose error.details.error_code says the month's spend cap is reached.
  'enforced_spend_limit_reached',
  'insufficient_quota',
  'credit_balance_exhausted',
  'organization_spend_limit_exceeded',
  'project_spend_limit_exceeded',
  'organization_usage_limit_exceeded',
]);

/** Whether an error body's type or code says waiting will not help. */
export function isPermanentCode(code: string): boolean {
  // Gemini's per-day quota and a quota of 0 on the model's tier (http-json.ts googleQuotaCode).
  return PERMANENT_CODES.has(code) || code === 'quota_limit_0' || /PerDay/.test(code);
}

/**
 * SageMaker's answer while an inference component has no copy (scaled in to zero, or not yet
 * out again): HTTP 400 ValidationError "Inference Component has no capacity to process this
 * request. ApplicationAutoScaling may be in-progress (if configured) or try to increase the
 * capacity by invoking UpdateInferenceComponentRuntimeConfig API." (AWS Machine Learning Blog,
 * "Unlock cost savings with the new scale down to zero feature in SageMaker Inference", Dec
 * 2024). The failed call emits NoCapacityInvocationFailures, whose alarm starts the scale-out;
 * "the provisioning process takes several minutes. During that time, any attempts to invoke
 * the endpoint will produce an error" (SageMaker Developer Guide, "Scale an endpoint to zero
 * instances").
 */
const NO_CAPACITY = /Inference Component has no capacity/i;
/** How often a call waiting for an inference component's first copy asks again. */
const SCALE_FROM_ZERO_POLL_MS = 15_000;

/**
 * A 503 that says "slow down" rather than "down": Ollama's full scheduler queue ("server busy,
 * please try again.  maximum pending requests exceeded", ollama server/sched.go `ErrMaxQueue`
 * @fb30760) and Gemini's busy model (503 UNAVAILABLE, "temporarily overloaded" in the Gemini
 * API's "Troubleshooting" page; answered "The model is overloaded. Please try again later.",
 * google-gemini/cookbook#425, and since 2026 "This model is currently experiencing high
 * demand…", continuedev/continue#10639), and OpenAI's 503 "Slow Down" (API docs, "Error codes":
 * "A sudden increase in your request rate is impacting service reliability. Please reduce your
 * request rate to its original level, maintain a consistent rate for at least 15 minutes, and
 * then gradually increase it"; code `slow_down`): the call policy backs its concurrency off.
 */
const BUSY_503 = /server busy|overloaded|high demand|slow down/i;

/** Names that mean "over your quota", whatever the status (SageMaker sends ThrottlingException with 400). */
const THROTTLE_NAMES = new Set(['ThrottlingException', 'TooManyRequestsException']);

/**
 * What a model server's 503 means, by its own words — not every 503 is "too many at once":
 * - djl-serving (LMI), wlm/.../WorkLoadManager.java `runJob` @ v0.36.0-24-gd21927c4:
 *   `WlmCapacityException` "Worker queue capacity exceeded for model: <id>" is its overload,
 *   answered with the throttle code (InferenceRequestHandler.java `onException`,
 *   `getThrottleErrorHttpCode`, 503 by default): throttling, backed off.
 *   `WlmShutdownException` "All model workers has been shutdown: <id>" (503, the WLM error code)
 *   will not clear by waiting: not retried. "Model is not ready: <id>" (WlmException, 503) is a
 *   model still loading: retried within the ordinary retry budget, never backing concurrency off.
 * - llama.cpp (tools/server/server.cpp `middleware_server_state`): its only 503 is "Loading
 *   model" (`ERROR_TYPE_UNAVAILABLE`) while the model loads; a busy llama.cpp queues requests
 *   for a free slot instead (retried, not throttling).
 * - vLLM (entrypoints/serve/elastic_ep/middleware.py `ScalingMiddleware`): 503 "The model is
 *   currently scaling. Please try again later." while elastic EP rescales; a busy vLLM queues
 *   requests (retried, not throttling).
 * - TGI (router/src/server.rs v3.3.7): overload is 429 `overloaded`; its 503 is `/health`'s
 *   "unhealthy" only, never an inference route's.
 */
const OVERLOADED_503 = /WlmCapacityException|Worker queue capacity exceeded/;
const GONE_503 = /WlmShutdownException|All model workers has been shutdown/;

/** How a 503 whose body says `message` is retried: throttled (overload: djl's, Ollama's and Gemini's — see BUSY_503), not at all (shut down), or as any 5xx. */
export function classify503(message: string): { retryable: boolean; throttled: boolean; note?: string } {
  if (GONE_503.test(message)) return { retryable: false, throttled: false, note: ' (not retried: the model server has shut its workers down)' };
  return { retryable: true, throttled: OVERLOADED_503.test(message) || BUSY_503.test(message) };
}

const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);

/** Whether an HTTP status is worth another attempt. */
export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUS.has(status);
}

/**
 * Parses a Retry-After header: delta-seconds or an HTTP date (RFC 9110 §10.2.3).
 * Returns milliseconds from `now`, never negative, or undefined when absent or unparsable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * The server's wait hint: `retry-after-ms` (milliseconds, sent by OpenAI and Azure OpenAI)
 * wins over `Retry-After` (seconds or an HTTP date).
 */
export function retryAfterFromHeaders(get: (name: string) => string | null | undefined, now: number): number | undefined {
  const ms = get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.round(Number(ms));
  return parseRetryAfter(get('retry-after'), now);
}

/**
 * A failure from an HTTP status and the server's message. `code` is the error body's code or
 * type (OpenAI's `error.code`): a 429 `insufficient_quota` fails at once, unthrottled.
 */
export function httpFailure(
  status: number,
  serverMessage: string,
  retryAfter: string | null | undefined | { ms: number | undefined },
  now: number,
  code?: string,
): ProviderCallError {
  const retryAfterMs = typeof retryAfter === 'object' && retryAfter !== null ? retryAfter.ms : parseRetryAfter(retryAfter, now);
  if (code !== undefined && isPermanentCode(code)) {
    return new ProviderCallError(
      `HTTP ${status} ${code}: ${truncate(serverMessage)} (not retried: waiting does not restore a quota; check the account's plan and billing)`,
      {
        retryable: false,
        throttled: false,
        status,
      },
    );
  }
  const unavailable = status === 503 ? classify503(code === 'slow_down' ? `slow down: ${serverMessage}` : serverMessage) : undefined;
  return new ProviderCallError(`HTTP ${status}: ${truncate(serverMessage)}${unavailable?.note ?? ''}`, {
    retryable: unavailable?.retryable ?? isRetryableStatus(status),
    ...(unavailable?.throttled ? { throttled: true } : {}),
    status,
    ...(code !== undefined ? { code } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}

/**
 * Whether a failure is Azure's content filter refusing the prompt: HTTP 400 with
 * `error.code: "content_filter"` (Microsoft Learn, "Content filtering", response scenarios).
 * The model's deterministic answer to that prompt, recorded as a refusal, never retried.
 */
export function isContentFiltered(err: unknown): err is ProviderCallError {
  return err instanceof ProviderCallError && err.status === 400 && err.code === 'content_filter';
}

/** A 2xx response whose body is not what the wire format promises: retryable, it is usually transient. */
export function malformed(what: string, cause?: unknown): ProviderCallError {
  return new ProviderCallError(`malformed response: ${truncate(what)}`, { retryable: true, cause });
}

/** The hard per-call timeout fired. */
export function timedOut(ms: number): ProviderCallError {
  return new ProviderCallError(`no response within ${ms} ms`, { retryable: true });
}

interface SdkLikeError {
  name?: string;
  message?: string;
  code?: string;
  $fault?: string;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: number };
  $response?: { statusCode?: number; headers?: Record<string, string | undefined> };
  cause?: unknown;
  OriginalStatusCode?: number;
}

/**
 * Classifies an error thrown by an AWS SDK v3 client call (service errors, deserialisation
 * errors of a malformed body, socket errors). SageMaker's `ModelError` wraps the container's
 * own status, which decides.
 */
export function classifySdkError(err: unknown, now: number): ProviderCallError {
  if (err instanceof ProviderCallError) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as SdkLikeError;
  const name = e.name ?? 'Error';
  const message = e.message ?? String(err);
  const status = e.$metadata?.httpStatusCode ?? e.$response?.statusCode;
  const retryAfterMs = retryAfterFromHeaders((h) => headerOf(e.$response?.headers, h), now);
  const extra = { ...(status !== undefined ? { status } : {}), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}), cause: err };

  // Configuration problems (no region, no credentials) will not fix themselves.
  if (name === 'CredentialsProviderError' || /region is missing/i.test(message)) {
    return new ProviderCallError(`${name}: ${message}`, { retryable: false, cause: err });
  }
  if (isNetworkError(e)) return new ProviderCallError(`connection failed: ${name}: ${message}`, { retryable: true, ...extra });
  if (e.$fault === 'client' || e.$fault === 'server') {
    if (name === 'ModelError' && typeof e.OriginalStatusCode === 'number') {
      // A container answering 429 (TGI's "Model is overloaded", a vLLM behind a rate limiter) is
      // throttling: the call policy backs its concurrency off. A 503 is throttling only when the
      // server says it is full (djl-serving's WlmCapacityException); see classify503.
      const unavailable = e.OriginalStatusCode === 503 ? classify503(message) : undefined;
      return new ProviderCallError(`${name} (container status ${e.OriginalStatusCode}): ${truncate(message)}${unavailable?.note ?? ''}`, {
        retryable: unavailable?.retryable ?? isRetryableStatus(e.OriginalStatusCode),
        throttled: unavailable?.throttled ?? e.OriginalStatusCode === 429,
        ...extra,
      });
    }
    if (name === 'ValidationError' && NO_CAPACITY.test(message)) {
      return new ProviderCallError(`${name}: ${truncate(message)} (the inference component is scaling out from zero copies: waited for)`, {
        retryable: true,
        awaitingCapacity: true,
        ...extra,
        retryAfterMs: extra.retryAfterMs ?? SCALE_FROM_ZERO_POLL_MS,
      });
    }
    // An AWS ConflictException (409: a job name taken, a resource being modified) is not the lock timeout OpenAI's 409 is.
    const retryable =
      RETRYABLE_AWS_NAMES.has(name) || Boolean(e.$retryable) || (name !== 'ConflictException' && status !== undefined && isRetryableStatus(status));
    const throttled = THROTTLE_NAMES.has(name) || status === 429;
    return new ProviderCallError(`${name}: ${truncate(message)}`, { retryable, throttled, ...extra });
  }
  // A 2xx whose body did not parse surfaces as a plain error carrying the raw response.
  if (status !== undefined && status >= 200 && status < 300) return malformed(`${name}: ${message}`, err);
  if (status !== undefined) {
    return new ProviderCallError(`HTTP ${status}: ${name}: ${truncate(message)}`, { retryable: isRetryableStatus(status), ...extra });
  }
  if (name === 'SyntaxError') return malformed(message, err);
  return new ProviderCallError(`${name}: ${truncate(message)}`, { retryable: true, ...extra });
}

function isNetworkError(e: SdkLikeError): boolean {
  if (e.code !== undefined && NETWORK_CODES.has(e.code)) return true;
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return true;
  const cause = e.cause as { code?: string } | undefined;
  return cause?.code !== undefined && NETWORK_CODES.has(cause.code);
}

function headerOf(headers: Record<string, string | undefined> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

function truncate(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
