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

/** Runner invocations reserved per executor image. */
export const RUNNER_RESERVED_CONCURRENCY = 100;
/** Items one Fargate task judges at once (its cores, functions/execute/consumer.ts). */
export const FARGATE_TASK_ITEMS = 2;

/**
 * The `maxConcurrency` of an image's Lambda judge mapping: the runner's reservation less what
 * the Fargate lane's tasks may hold (a judge holds one runner invocation at a time).
 * @example
 * judgeMaxConcurrency(4) // 92: 100 reserved, 4 tasks × 2 items on Fargate
 */
export function judgeMaxConcurrency(fargateMaxTasks: number): number {
  return Math.max(2, RUNNER_RESERVED_CONCURRENCY - fargateMaxTasks * FARGATE_TASK_ITEMS);
}
