/**
 * POSTing JSON with fetch and reading a JSON answer, mapping every way it can go wrong to a
 * classified ProviderCallError: an HTTP error status (with the server's own message and
 * Retry-After), an empty body, a body that is not JSON.
 */
import { ProviderCallError, httpFailure, isPermanentCode, malformed, retryAfterFromHeaders } from './failures.ts';

/** POSTs `body` as JSON to `url` and returns the parsed JSON answer of a 2xx response. */
export async function postJson(url: string, body: unknown, headers: Record<string, string>, signal: AbortSignal, now: () => number): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
    signal,
  });
  const text = await res.text();
  if (!res.ok)
    throw httpFailure(
      res.status,
      serverMessage(text) || res.statusText,
      { ms: retryAfterFromHeaders((h) => res.headers.get(h), now()) },
      now(),
      errorCode(text),
    );
  return parseJsonBody(text);
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
