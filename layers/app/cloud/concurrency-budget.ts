/**
 * How the deployment shares the account's Lambda concurrency (1,000 per Region by default,
 * "Lambda quotas"). Judges (the execute functions and the Fargate tasks) invoke their runner
 * synchronously and wait for it, so a runner that is throttled turns a judged item into a
 * retry. Each runner therefore gets reserved concurrency, and the SQS mapping of its Lambda
 * judge a `maxConcurrency` that, with the Fargate lane's judges, never asks for more runner
 * invocations at once than are reserved ("Configuring reserved concurrency",
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html; "Configuring
 * scaling behavior for SQS event source mappings",
 * https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html). What is left
 * unreserved (at least 100, as Lambda requires) serves the judges themselves and the stage
 * functions.
 */

/**
 * Runner invocations reserved per executor image by default (context `runnerReservedConcurrency`
 * changes it; 0 reserves nothing). Five images reserve 500, so an account whose Regional limit
 * is below 600 (new accounts can start lower than the default 1,000) must lower it or deploy fails.
 */
export const RUNNER_RESERVED_CONCURRENCY = 100;
/** Items one Fargate task judges at once (its cores, functions/execute/consumer.ts). */
export const FARGATE_TASK_ITEMS = 2;

/**
 * The `maxConcurrency` of an image's Lambda judge mapping: the runner's reservation less what
 * the Fargate lane's tasks may hold (a judge holds one runner invocation at a time). With no
 * reservation there is nothing to fit: undefined (the mapping's own scaling; a throttled runner
 * sends its item back to the queue, never to a verdict).
 * @example
 * judgeMaxConcurrency(4) // 92: 100 reserved, 4 tasks × 2 items on Fargate
 * judgeMaxConcurrency(4, 0) // undefined: no reservation
 */
export function judgeMaxConcurrency(fargateMaxTasks: number, reserved = RUNNER_RESERVED_CONCURRENCY): number | undefined {
  if (reserved === 0) return undefined;
  return Math.max(2, reserved - fargateMaxTasks * FARGATE_TASK_ITEMS);
}
