/**
 * Calling a JSON API with fetch and reading its answer, mapping every way it can go wrong to a
 * classified ProviderCallError: an HTTP error status (with the server's own message and
 * Retry-After), an empty body, a body that is not JSON.
 */
import { ProviderCallError, httpFailure, isPermanentCode, malformed, retryAfterFromHeaders } from './failures.ts';

/** One HTTP call: a JSON body (a string) is sent as application/json; FormData sets its own type. */
export interface JsonRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | FormData;
  signal: AbortSignal;
  now: () => number;
  /** How a 2xx body is returned: parsed JSON (default) or the text (JSONL result files). */
  read?: 'json' | 'text';
}

/** Sends `req` to `url` and returns the 2xx answer; any other status is a classified ProviderCallError. */
export async function fetchJson(url: string, req: JsonRequest): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: req.method,
      headers: { ...(typeof req.body === 'string' ? { 'content-type': 'application/json' } : {}), accept: 'application/json', ...req.headers },
      ...(req.body !== undefined ? { body: req.body } : {}),
      signal: req.signal,
      // Never followed: fetch (undici lib/web/fetch/index.js `httpRedirectFetch`, as in Node 20)
      // drops only Authorization on a cross-origin redirect, so Anthropic's x-api-key and Azure's
      // api-key would follow a 307 from an allowed host to any other (key-hosts.ts checks the
      // URL we call, not where it redirects). No API call here is answered with a redirect.
      redirect: 'manual',
    });
  } catch (err) {
    throw unreachable(url, err);
  }
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    const location = res.headers.get('location');
    throw new ProviderCallError(
      `${new URL(url).origin} answered ${res.status} with a redirect${location ? ` to ${new URL(location, url).origin}` : ''}: API calls are not redirected (the key would go with them); give the final URL as the base URL`,
      { retryable: false, status: res.status },
    );
  }
  const text = await res.text();
  if (!res.ok)
    throw httpFailure(
      res.status,
      serverMessage(text) || res.statusText,
      { ms: retryAfterFromHeaders((h) => res.headers.get(h), req.now()) ?? retryDelayOf(text) },
      req.now(),
      errorCode(text),
    );
  return req.read === 'text' ? text : parseJsonBody(text);
}

/**
 * fetch's own "fetch failed" names neither the server nor the cause: a connection that could
 * not be made (nothing listening — an `ollama serve` not started —, a wrong host) says both,
 * still retryable. Anything else (an abort, a timeout) passes through unchanged.
 */
function unreachable(url: string, err: unknown): unknown {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (!(err instanceof TypeError) || typeof cause?.code !== 'string') return err;
  return new ProviderCallError(`cannot reach ${new URL(url).origin}: ${cause.code} (${typeof cause.message === 'string' ? cause.message : err.message})`, {
    retryable: true,
    cause: err,
  });
}

/** POSTs `body` as JSON to `url` and returns the parsed JSON answer of a 2xx response. */
export function postJson(url: string, body: unknown, headers: Record<string, string>, signal: AbortSignal, now: () => number): Promise<unknown> {
  return fetchJson(url, { method: 'POST', headers, body: JSON.stringify(body), signal, now });
}

/** Parses a 2xx body: empty or non-JSON bodies are retryable failures. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw new ProviderCallError('empty response body', { retryable: true });
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw malformed(`body is not JSON: ${text.slice(0, 200)}`, err);
  }
}

/**
 * An error body as JSON, unwrapped from the one-element array Gemini's OpenAI-compatible
 * endpoint may send (`[{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", …}}]`, as
 * reported in n4ze3m/page-assist#406); throws when the text is not JSON.
 */
function errorBody(text: string): unknown {
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) && parsed.length === 1 ? (parsed[0] as unknown) : parsed;
}

/**
 * The wait a Google API error asks for: `google.rpc.RetryInfo.retryDelay` ("46s") in the
 * error's `details`, as Gemini's quota errors carry it (quoted in dev.to/nils44344, "Gemini API 429
 * RESOURCE_EXHAUSTED: why your limit is 0"; the message google/rpc/error_details.proto defines).
 */
export function retryDelayOf(text: string): number | undefined {
  try {
    const error = (errorBody(text) as { error?: { details?: unknown } }).error;
    const details = Array.isArray(error?.details) ? (error.details as { '@type'?: unknown; retryDelay?: unknown }[]) : [];
    const info = details.find((d) => typeof d['@type'] === 'string' && d['@type'].endsWith('google.rpc.RetryInfo'));
    const m = typeof info?.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(info.retryDelay) : null;
    return m ? Math.round(Number(m[1]) * 1000) : undefined;
  } catch {
    return undefined;
  }
}

/** The message of an error body in the shapes servers use: {error:{message}}, {error:"…"}, {message}, or plain text. */
export function serverMessage(text: string): string {
  try {
    const parsed = errorBody(text) as { error?: unknown; message?: unknown; detail?: unknown };
    const error = parsed.error;
    if (typeof error === 'string') return error;
    if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
      return (error as { message: string }).message;
    }
    if (typeof parsed.message === 'string') return parsed.message;
    if (typeof parsed.detail === 'string') return parsed.detail;
  } catch {
    // not JSON: the text itself is the message
  }
  return text.trim().slice(0, 500);
}

/**
 * A Google quota that waiting minutes will not restore: a `google.rpc.QuotaFailure` violation
 * whose `quotaId` is per day (`GenerateRequestsPerDayPerProjectPerModel-FreeTier`), or a quota
 * whose message says `limit: 0` (the model has no quota on this tier) — Gemini's native quota
 * 429 "You exceeded your current quota, … Quota exceeded for metric: …, limit: 20, model: …",
 * as logged in public repositories and described in dev.to/nils44344 ("why your limit is 0").
 */
function googleQuotaCode(error: { details?: unknown; message?: unknown }): string | undefined {
  const details = Array.isArray(error.details) ? (error.details as { '@type'?: unknown; violations?: unknown }[]) : [];
  for (const d of details) {
    if (typeof d['@type'] !== 'string' || !d['@type'].endsWith('google.rpc.QuotaFailure') || !Array.isArray(d.violations)) continue;
    const daily = (d.violations as { quotaId?: unknown }[]).find((v) => typeof v.quotaId === 'string' && /PerDay/.test(v.quotaId));
    if (daily) return String(daily.quotaId);
  }
  return typeof error.message === 'string' && /\blimit: 0\b/.test(error.message) ? 'quota_limit_0' : undefined;
}

/** The code of an error body (OpenAI's `{error: {type, code}}`), a permanent one first; undefined otherwise. */
export function errorCode(text: string): string | undefined {
  try {
    const error = (errorBody(text) as { error?: { code?: unknown; type?: unknown; details?: { error_code?: unknown } | null } }).error;
    if (typeof error !== 'object' || error === null) return undefined;
    const codes = [error.details?.error_code, error.code, error.type, googleQuotaCode(error)].filter((c): c is string => typeof c === 'string');
    return codes.find(isPermanentCode) ?? codes[0];
  } catch {
    return undefined;
  }
}
