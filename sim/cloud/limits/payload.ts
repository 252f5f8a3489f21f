/**
 * Invocation payloads: a synchronous invocation takes a request and returns a response of
 * "6 MB each for request and response (synchronous)" (MB as Lambda writes it: 1,024 KB), and
 * an asynchronous one takes 1 MB ("Lambda quotas"; Invoke API: "For synchronous invocations,
 * the maximum payload size is 6 MB. For asynchronous invocations, the maximum payload size is
 * 1 MB"). A larger request fails with `RequestTooLargeException` (413) before anything runs.
 * A larger response fails the invocation after it ran (and billed): the caller gets
 * `FunctionError: Unhandled` and `{"errorType":"Function.ResponseSizeTooLarge","errorMessage":
 * "Response payload size exceeded maximum allowed payload size (6291556 bytes)."}` — the
 * response limit Lambda enforces is 100 bytes above 6 MiB (the figure in that message; moto's
 * Lambda tests expect the same body). The pipeline invokes only synchronously (the judge
 * calling its runner).
 * Pages: "Lambda quotas", https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html;
 * Invoke, https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html
 */

export const SYNC_PAYLOAD_BYTES = 6 * 1024 * 1024;
/** The largest synchronous response Lambda returns. */
export const SYNC_RESPONSE_BYTES = 6_291_556;
export const ASYNC_PAYLOAD_BYTES = 1024 * 1024;

/** @throws Error named RequestTooLargeException when `bytes` exceed the synchronous limit. */
export function checkInvokePayload(bytes: number): void {
  if (bytes > SYNC_PAYLOAD_BYTES)
    throw Object.assign(new Error(`request of ${bytes} bytes exceeds ${SYNC_PAYLOAD_BYTES}`), { name: 'RequestTooLargeException' });
}

/** What the caller of a synchronous invocation gets for a function's `payload`: itself, or Lambda's error once it is too large. */
export function invokeResponse(answer: { payload: string; functionError?: string }): { payload: string; functionError?: string } {
  if (Buffer.byteLength(answer.payload, 'utf8') <= SYNC_RESPONSE_BYTES) return answer;
  return {
    payload: JSON.stringify({
      errorMessage: `Response payload size exceeded maximum allowed payload size (${SYNC_RESPONSE_BYTES} bytes).`,
      errorType: 'Function.ResponseSizeTooLarge',
    }),
    functionError: 'Unhandled',
  };
}
