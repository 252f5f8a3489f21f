/** The watchdog function's dependencies: built once per container from its environment. */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoRunLedger, SqsWorkQueue } from '#aws/index.ts';
import { EventBridgePublisher } from '#aws/index.ts';
import { DynamoQueueAlarmStore, readQueues, watchedQueuesOf } from '#aws/index.ts';
import { peekMessages, sqsQueueDepth } from '#aws/index.ts';
import { ASYNC_EVENTS_PERIOD_SECONDS, readAsyncEventsReceived } from '#aws/index.ts';
import { lookbackMs, runnerEventsWaitReason, type RunnerEventWindow } from '#app/cloud/runner-events.ts';
import { requireEnv } from '../shared/env.ts';
import type { AggregateMessage } from '#app/cloud/messages.ts';
import type { WatchdogDeps } from '#app/cloud/watchdog.ts';
import { deadLetterOf } from '#app/cloud/run-control.ts';
import { QUEUE_ALARM_DETAIL_TYPE, type QueueAlarmState, type QueueAlert } from '#app/cloud/queue-alarms.ts';
import { createObservability, type Observability } from '../shared/observability.ts';

export interface WatchdogHandlerDeps extends WatchdogDeps {
  obs?: Observability;
}

export function createWatchdogDeps(env: NodeJS.ProcessEnv = process.env): WatchdogHandlerDeps {
  const obs = createObservability('watchdog');
  // The ledger and the queues only: the watchdog never reads the bucket.
  const sqs = obs.tracer.captureAWSv3Client(new SQSClient({}));
  const dynamo = obs.tracer.captureAWSv3Client(new DynamoDBClient({}));
  const ledger = new DynamoRunLedger({ client: dynamo, tableName: requireEnv('TABLE_NAME', env) });
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
  // QUEUE_ALARMS (name=maxAgeSeconds per watched queue) and ALARM_BUS_NAME: the work queues' alarms
  // (layers/app/cloud/queue-alarms.ts); EventBridge carries each transition to the alarm topic.
  const alarmSpec = env.QUEUE_ALARMS ?? '';
  const alarmBus = env.ALARM_BUS_NAME ?? '';
  const queueAlarms: WatchdogDeps['queueAlarms'] =
    alarmSpec !== '' && alarmBus !== ''
      ? (() => {
          const queues = watchedQueuesOf(alarmSpec, watched, dlqs);
          const cloudwatch = obs.tracer.captureAWSv3Client(new CloudWatchClient({}));
          const events = new EventBridgePublisher({ client: obs.tracer.captureAWSv3Client(new EventBridgeClient({})), busName: alarmBus });
          return {
            read: (now: Date) => readQueues(sqs, cloudwatch, queues, now),
            store: new DynamoQueueAlarmStore<QueueAlarmState>({ client: dynamo, tableName: requireEnv('TABLE_NAME', env) }),
            notify: async (alerts: QueueAlert[]) => {
              for (const alert of alerts) await events.publish(QUEUE_ALARM_DETAIL_TYPE, { ...alert });
            },
          };
        })()
      : undefined;
  // RUNNER_FUNCTION_NAMES (comma-separated), RUNNER_MAX_EVENT_AGE_SECONDS, RUNNER_TIMEOUT_SECONDS: the runners the
  // judges invoke asynchronously; while one may still hold an event, stalled runs wait (layers/app/cloud/runner-events.ts).
  const runners = (env.RUNNER_FUNCTION_NAMES ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const runnerEventsWaiting: WatchdogDeps['runnerEventsWaiting'] =
    runners.length > 0
      ? (() => {
          const window: RunnerEventWindow = {
            maxEventAgeMs: positiveSeconds(env, 'RUNNER_MAX_EVENT_AGE_SECONDS') * 1000,
            timeoutMs: positiveSeconds(env, 'RUNNER_TIMEOUT_SECONDS') * 1000,
            periodMs: ASYNC_EVENTS_PERIOD_SECONDS * 1000,
          };
          const cloudwatch = obs.tracer.captureAWSv3Client(new CloudWatchClient({}));
          return async (now: Date) => runnerEventsWaitReason(await readAsyncEventsReceived(cloudwatch, runners, now, lookbackMs(window)), now, window);
        })()
      : undefined;
  return {
    obs,
    ...(queueAlarms ? { queueAlarms } : {}),
    ...(runnerEventsWaiting ? { runnerEventsWaiting, settle: () => new Promise<void>((resolve) => setTimeout(resolve, RUNNER_METRIC_SETTLE_MS)) } : {}),
    ledger,
    aggregateQueue: new SqsWorkQueue<AggregateMessage>({ client: sqs, queueUrl: requireEnv('AGGREGATE_QUEUE_URL', env) }),
    pipelineDepth: async () => (await Promise.all(watched.map((url) => sqsQueueDepth(sqs, url)))).reduce((a, b) => a + b, 0),
    clock: () => new Date(),
    ...(dlqs.length > 0
      ? { deadLetters: () => peekMessages(sqs, dlqs, 5, deadLetterOf) /* 5-s long polls: every DLQ within the timeout; each body reduced to its ids as read */ }
      : {}),
    ...(Number.isFinite(stallMinutes) && stallMinutes > 0 ? { stallMs: stallMinutes * 60_000 } : {}),
  };
}

/**
 * How long the watchdog waits, before closing a stalled run, for CloudWatch to publish the runners'
 * AsyncEventsReceived of the minute the queues were read in: Lambda sends its metrics at one-minute
 * intervals ("Using CloudWatch metrics with Lambda"); AWS documents no bound on the delay after that,
 * about 2 minutes is what monitoring vendors observe for one-minute metrics (Datadog, "Cloud metric
 * delay", read 2026-12-07). Within the watchdog's timeout (infra/watchdog.ts, 5 minutes); billed only on
 * a tick that would close a run.
 */
export const RUNNER_METRIC_SETTLE_MS = 3 * 60_000;

/** A whole number of seconds above 0 from `env[name]`. @throws Error naming the variable and its value */
function positiveSeconds(env: NodeJS.ProcessEnv, name: string): number {
  const text = requireEnv(name, env);
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a whole number of seconds above 0, not ${JSON.stringify(text)}`);
  return value;
}
