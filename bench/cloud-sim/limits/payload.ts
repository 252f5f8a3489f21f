/**
 * Invocation payloads: a synchronous invocation takes a request and returns a response of at
 * most 6 MB each ("Invocation payload (request and response): 6 MB each for synchronous");
 * a larger request fails with `RequestTooLargeException` (413).
 * Page: "Lambda quotas", https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html
 */

export const SYNC_PAYLOAD_BYTES = 6 * 1024 * 1024;

/** @throws Error named RequestTooLargeException when `bytes` exceed the synchronous limit. */
export function checkInvokePayload(bytes: number): void {
  if (bytes > SYNC_PAYLOAD_BYTES)
    throw Object.assign(new Error(`request of ${bytes} bytes exceeds ${SYNC_PAYLOAD_BYTES}`), { name: 'RequestTooLargeException' });
}
