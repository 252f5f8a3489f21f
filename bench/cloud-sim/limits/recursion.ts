/**
 * Lambda recursive loop detection. Lambda tags each event with the chain it belongs to (the
 * AWS SDK and X-Ray carry it in `X-Amzn-Trace-Id` through SQS) and, by default
 * (`RecursiveLoop: Terminate`), stops invoking a function once the same chain has gone round
 * about 16 times; the dropped events show as `RecursiveInvocationsDropped` and an SQS message
 * goes to its queue's dead-letter queue.
 * Page: "Use Lambda recursive loop detection to prevent infinite loops",
 * https://docs.aws.amazon.com/lambda/latest/dg/invocation-recursion.html
 */

/** Invocations of one chain Lambda allows before it drops the next one. */
export const RECURSION_HOP_LIMIT = 16;

/** Whether an event `hop` hops from the chain's start may still invoke its function. */
export function recursionAllows(hop: number, limit = RECURSION_HOP_LIMIT): boolean {
  return hop <= limit;
}
