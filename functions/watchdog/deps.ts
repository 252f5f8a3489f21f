/** The watchdog function's dependencies: built once per container from its environment. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoRunLedger, SqsWorkQueue } from '#aws/index.ts';
import { peekMessages, sqsQueueDepth } from '#aws/index.ts';
import { requireEnv } from '../shared/env.ts';
import type { AggregateMessage } from '#app/cloud/messages.ts';
import type { WatchdogDeps } from '#app/cloud/watchdog.ts';
import { createObservability, type Observability } from '../shared/observability.ts';

export interface WatchdogHandlerDeps extends WatchdogDeps {
  obs?: Observability;
}

export function createWatchdogDeps(env: NodeJS.ProcessEnv = process.env): WatchdogHandlerDeps {
  const obs = createObservability('watchdog');
  // The ledger and the queues only: the watchdog never reads the bucket.
  const sqs = obs.tracer.captureAWSv3Client(new SQSClient({}));
  const ledger = new DynamoRunLedger({ client: obs.tracer.captureAWSv3Client(new DynamoDBClient({})), tableName: requireEnv('TABLE_NAME', env) });
  // WATCHED_QUEUE_URLS: every stage and execute queue (comma-separated), not the DLQs.
  const watched = requireEnv('WATCHED_QUEUE_URLS', env)
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  const stallMinutes = Number(env.STALL_MINUTES ?? '30');
  const dlqs = (env.DEAD_LETTER_QUEUE_URLS ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  return {
    obs,
    ledger,
    aggregateQueue: new SqsWorkQueue<AggregateMessage>({ client: sqs, queueUrl: requireEnv('AGGREGATE_QUEUE_URL', env) }),
    pipelineDepth: async () => (await Promise.all(watched.map((url) => sqsQueueDepth(sqs, url)))).reduce((a, b) => a + b, 0),
    clock: () => new Date(),
    ...(dlqs.length > 0 ? { deadLetterBodies: () => peekMessages(sqs, dlqs, 5) /* 5-s long polls: every DLQ within the 2-min timeout */ } : {}),
    ...(Number.isFinite(stallMinutes) && stallMinutes > 0 ? { stallMs: stallMinutes * 60_000 } : {}),
  };
}
