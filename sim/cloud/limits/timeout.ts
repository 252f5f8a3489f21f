/**
 * Function timeout: at most 900 seconds (15 minutes); Lambda stops an invocation at its
 * function's configured timeout, and an SQS batch whose invocation timed out comes back after
 * the visibility timeout, as if every message failed.
 * Page: "Lambda quotas", https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html;
 * "Configure Lambda function timeout", https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html
 */

export const MAX_TIMEOUT_MS = 900_000;

/** How long an invocation that wanted `wantedMs` is billed and whether it timed out. */
export function applyTimeout(wantedMs: number, timeoutMs: number): { billedMs: number; timedOut: boolean } {
  if (timeoutMs > MAX_TIMEOUT_MS) throw new Error(`a function timeout of ${timeoutMs} ms exceeds Lambda's ${MAX_TIMEOUT_MS}`);
  return wantedMs > timeoutMs ? { billedMs: timeoutMs, timedOut: true } : { billedMs: wantedMs, timedOut: false };
}
