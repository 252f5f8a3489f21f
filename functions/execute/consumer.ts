/**
 * The Fargate lane's entrypoint (same image as the execute Lambda): long-polls QUEUE_URL and
 * runs the same core function as the Lambda handler, `EXECUTOR_CONCURRENCY` samples at a time
 * (default: the task's cores). A failed message is left to reappear and, after the queue's
 * maxReceiveCount, to land in its DLQ. On SIGTERM (scale-in) no new message is taken; what is
 * in flight finishes or is redelivered after its visibility timeout.
 */
import { availableParallelism } from 'node:os';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsWorkQueue } from '#aws/index.ts';
import { requireEnv } from '#app/cloud-env.ts';
import { parseGeneratedItem } from '#app/cloud-messages.ts';
import { executeWork } from '#app/cloud-stages.ts';
import { createExecuteDeps, type ExecuteHandlerDeps } from './deps.ts';

export interface ConsumerOptions {
  queue: SqsWorkQueue<unknown>;
  deps: ExecuteHandlerDeps;
  concurrency: number;
}

/** Consumes until the queue is closed and drained. */
export async function consume(options: ConsumerOptions): Promise<void> {
  const { deps } = options;
  await options.queue.consume(
    async (message) => {
      const outcome = await executeWork(deps, parseGeneratedItem(message.body));
      deps.obs?.logger.info('message handled', { id: message.id, attempt: message.attempt, ...outcome });
    },
    { concurrency: options.concurrency },
  );
}

async function main(): Promise<void> {
  const env = process.env;
  const deps = createExecuteDeps(env);
  // Long items (the reason for this lane) keep their message invisible with a heartbeat, so
  // a sample that runs past the visibility timeout is not handed to a second task.
  const queue = new SqsWorkQueue<unknown>({ client: new SQSClient({}), queueUrl: requireEnv('QUEUE_URL', env), heartbeatSec: 60, visibilityTimeoutSec: 300 });
  process.once('SIGTERM', () => queue.close());
  const concurrency = Number(env.EXECUTOR_CONCURRENCY ?? availableParallelism());
  await consume({ queue, deps, concurrency: Number.isInteger(concurrency) && concurrency > 0 ? concurrency : 1 });
}

// Run only as the entrypoint (`node consumer.mjs`), not when a test imports `consume`.
if (process.argv[1] !== undefined && /consumer\.(mjs|js|ts)$/.test(process.argv[1])) {
  main().catch((error: unknown) => {
    process.stderr.write(`polyeval consumer: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
