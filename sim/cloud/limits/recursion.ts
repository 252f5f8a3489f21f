/**
 * Lambda recursive loop detection. Events that Lambda, SQS, SNS and S3 carry are tagged with
 * the chain of requests they belong to (X-Ray's trace header, updated by supported AWS SDKs —
 * for Node.js SDK v3 from 3.105.0 — whether or not tracing is on), with a count of how often
 * the chain has invoked each function. By default (`RecursiveLoop: Terminate`, changed per
 * function with PutFunctionRecursionConfig or the `RecursiveLoop` property), once a function
 * has been invoked "approximately 16 times in the same chain of requests", Lambda stops the
 * next invocation in that chain (metric `RecursiveInvocationsDropped`). For an SQS event source
 * mapping the drop is a `RecursiveInvocationException` to the mapping: the receive counts, the
 * message comes back after its visibility timeout and is dropped again, "until Amazon SQS
 * determines that the maxReceiveCount is exceeded and sends the message to the configured
 * dead-letter queue" — it never reaches the function. A redelivery is the same event: it does
 * not lengthen the chain. Loops through other services (DynamoDB) are not detected.
 * Page: "Use Lambda recursive loop detection to prevent infinite loops",
 * https://docs.aws.amazon.com/lambda/latest/dg/invocation-recursion.html
 */

/** Invocations of one function in one chain Lambda allows before it drops the next one. */
export const RECURSION_HOP_LIMIT = 16;

/** Whether an event `hop` hops from the chain's start may still invoke its function. */
export function recursionAllows(hop: number, limit = RECURSION_HOP_LIMIT): boolean {
  return hop <= limit;
}
