/**
 * The Fargate lane's entrypoint (same image as the execute Lambda): long-polls QUEUE_URL and
 * runs the same core function as the Lambda handler, `EXECUTOR_CONCURRENCY` samples at a time
 * (default: the task's cores). A failed message is left to reappear and, after the queue's
 * maxReceiveCount, to land in its DLQ. While any item runs the task holds ECS scale-in
 * protection (task-protection.ts), so scaling in on queue depth stops idle tasks only. On
 * SIGTERM (a deployment, or an idle task scaled in) it drains: no new message is taken, one
 * already received is handed back at once, what is in flight finishes within the container's
 * stop timeout, then the process ends.
 */
import { availableParallelism } from 'node:os';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsWorkQueue } from '#aws/index.ts';
import { requireEnv } from '../shared/env.ts';
import { parseGeneratedItem } from '#app/cloud/messages.ts';
import { executeWork } from '#app/cloud/stages.ts';
import { createExecuteDeps, type ExecuteHandlerDeps } from './deps.ts';
import { TaskProtection } from './task-protection.ts';

export interface ConsumerOptions {
  queue: SqsWorkQueue<unknown>;
  deps: ExecuteHandlerDeps;
  concurrency: number;
  /** Scale-in protection while items run (default: none). */
  protection?: Pick<TaskProtection, 'around'>;
}

/** Consumes until the queue is closed and drained, or stopped. */
export async function consume(options: ConsumerOptions): Promise<void> {
  const { deps } = options;
  const guard = options.protection ?? { around: <T>(work: () => Promise<T>) => work() };
  await options.queue.consume(
    (message) =>
      guard.around(async () => {
        const outcome = await executeWork(deps, parseGeneratedItem(message.body));
        deps.obs?.logger.info('message handled', { id: message.id, attempt: message.attempt, ...outcome });
        await deps.afterItem?.(); // ends the task if the program left anything behind
      }),
    { concurrency: options.concurrency },
  );
}

async function main(): Promise<void> {
  const env = process.env;
  const deps = createExecuteDeps(env);
  // Long items (the reason for this lane) keep their message invisible with a heartbeat, so
  // a sample that runs past the visibility timeout is not handed to a second task.
  const queue = new SqsWorkQueue<unknown>({ client: new SQSClient({}), queueUrl: requireEnv('QUEUE_URL', env), heartbeatSec: 60, visibilityTimeoutSec: 300 });
  process.once('SIGTERM', () => {
    deps.obs?.logger.info('SIGTERM: draining (no new message; items in flight finish)', {});
    queue.stop();
  });
  const protection = new TaskProtection({ agentUri: env.ECS_AGENT_URI, log: (m, d) => deps.obs?.logger.warn(m, d) });
  const concurrency = Number(env.EXECUTOR_CONCURRENCY ?? availableParallelism());
  await consume({ queue, deps, protection, concurrency: Number.isInteger(concurrency) && concurrency > 0 ? concurrency : 1 });
}

// Run only as the entrypoint (`node consumer.mjs`), not when a test imports `consume`.
if (process.argv[1] !== undefined && /consumer\.(mjs|js|ts)$/.test(process.argv[1])) {
  main().catch((error: unknown) => {
    process.stderr.write(`polyeval consumer: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
