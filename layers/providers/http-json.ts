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
  const res = await fetch(url, {
    method: req.method,
    headers: { ...(typeof req.body === 'string' ? { 'content-type': 'application/json' } : {}), accept: 'application/json', ...req.headers },
    ...(req.body !== undefined ? { body: req.body } : {}),
    signal: req.signal,
  });
  const text = await res.text();
  if (!res.ok)
    throw httpFailure(
      res.status,
      serverMessage(text) || res.statusText,
      { ms: retryAfterFromHeaders((h) => res.headers.get(h), req.now()) },
      req.now(),
      errorCode(text),
    );
  return req.read === 'text' ? text : parseJsonBody(text);
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

/** The message of an error body in the shapes servers use: {error:{message}}, {error:"…"}, {message}, or plain text. */
export function serverMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
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

/** The code of an error body (OpenAI's `{error: {type, code}}`), a permanent one first; undefined otherwise. */
export function errorCode(text: string): string | undefined {
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; type?: unknown; details?: { error_code?: unknown } | null } }).error;
    if (typeof error !== 'object' || error === null) return undefined;
    const codes = [error.details?.error_code, error.code, error.type].filter((c): c is string => typeof c === 'string');
    return codes.find(isPermanentCode) ?? codes[0];
  } catch {
    return undefined;
  }
}
