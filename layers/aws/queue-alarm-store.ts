/**
 * The AWS side of the watchdog's queue alarms (layers/app/cloud/queue-alarms.ts): reading each
 * work queue and its DLQ with one GetQueueAttributes each, each work queue's
 * `ApproximateAgeOfOldestMessage` with one CloudWatch GetMetricData for all of them, and keeping
 * the alarm state in the ledger table as one item (pk `WATCHDOG`, sk `QUEUE_ALARMS`; no run row uses that key, and
 * `listRuns` reads only pk `RUNS`).
 */
import { GetMetricDataCommand, type CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { HarnessError } from '#core/errors.ts';
import { awsErrorName } from './aws-errors.ts';
import { sqsQueueDepth } from './sqs-dead-letters.ts';

/** The key of the alarm-state item in the ledger table. */
export const QUEUE_ALARMS_KEY = { pk: 'WATCHDOG', sk: 'QUEUE_ALARMS' } as const;

/** The watchdog's alarm state (layers/app/cloud/queue-alarms.ts `QueueAlarmState`), kept as JSON. */
export class DynamoQueueAlarmStore<State extends object> {
  readonly #doc: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(options: { client: DynamoDBClient; tableName: string }) {
    this.#doc = DynamoDBDocumentClient.from(options.client);
    this.#table = options.tableName;
  }

  async load(): Promise<State> {
    try {
      const out = await this.#doc.send(new GetCommand({ TableName: this.#table, Key: QUEUE_ALARMS_KEY, ConsistentRead: true }));
      const raw = out.Item?.['queues'];
      return (typeof raw === 'string' ? JSON.parse(raw) : {}) as State;
    } catch (error) {
      throw new HarnessError(`cannot read the queue alarm state from ${this.#table}: ${awsErrorName(error)}`, { cause: error });
    }
  }

  async save(state: State): Promise<void> {
    try {
      await this.#doc.send(new PutCommand({ TableName: this.#table, Item: { ...QUEUE_ALARMS_KEY, queues: JSON.stringify(state) } }));
    } catch (error) {
      throw new HarnessError(`cannot write the queue alarm state to ${this.#table}: ${awsErrorName(error)}`, { cause: error });
    }
  }
}

/** One watched work queue: its name, URL, its DLQ's URL and its age threshold (none: no age alarm, e.g. an answers queue). */
export interface WatchedQueue {
  name: string;
  url: string;
  deadLetterUrl: string;
  maxAgeMs?: number;
}

/** One queue as read (layers/app/cloud/queue-alarms.ts `QueueReading`). */
export interface QueueDepths {
  name: string;
  depth: number;
  deadLettered: number;
  maxAgeMs?: number;
  oldestAgeMs?: number;
}

/** The age window the watchdog reads: three 5-minute periods, what the CloudWatch age alarms evaluated (3 × 5 min, Maximum). */
export const AGE_PERIOD_SECONDS = 300;
export const AGE_PERIODS = 3;

/** The SQS queue name of a queue URL (its last path segment): the `QueueName` dimension of AWS/SQS metrics. */
export function queueNameOfUrl(url: string): string {
  return url.replace(/\/+$/, '').split('/').pop() ?? url;
}

/**
 * Each work queue's `ApproximateAgeOfOldestMessage` (namespace AWS/SQS, dimension QueueName; SQS
 * publishes it, seconds) over the last {@link AGE_PERIODS} periods of {@link AGE_PERIOD_SECONDS}
 * before `now`, statistic Maximum: the smallest of those periodic maxima, ms — over the threshold
 * only when every period reported was — or undefined when no period reported (the CloudWatch alarm
 * treated missing data as not breaching). One request; billed per metric requested.
 */
export async function readOldestAges(client: CloudWatchClient, queues: readonly WatchedQueue[], now: Date): Promise<(number | undefined)[]> {
  if (queues.length === 0) return [];
  const periodMs = AGE_PERIOD_SECONDS * 1000;
  // Period boundaries as CloudWatch keeps them; the period still running is asked for too (SQS may have reported it).
  const start = new Date(Math.floor(now.getTime() / periodMs) * periodMs - AGE_PERIODS * periodMs);
  const end = new Date(Math.max(now.getTime(), start.getTime() + periodMs));
  try {
    const out = await client.send(
      new GetMetricDataCommand({
        StartTime: start,
        EndTime: end,
        MetricDataQueries: queues.map((q, i) => ({
          Id: `q${i}`,
          ReturnData: true,
          MetricStat: {
            Metric: { Namespace: 'AWS/SQS', MetricName: 'ApproximateAgeOfOldestMessage', Dimensions: [{ Name: 'QueueName', Value: queueNameOfUrl(q.url) }] },
            Period: AGE_PERIOD_SECONDS,
            Stat: 'Maximum',
          },
        })),
      }),
    );
    return queues.map((_, i) => {
      const values = out.MetricDataResults?.find((r) => r.Id === `q${i}`)?.Values ?? [];
      return values.length > 0 ? Math.min(...values) * 1000 : undefined;
    });
  } catch (error) {
    throw new HarnessError(`cannot read the work queues' ApproximateAgeOfOldestMessage from CloudWatch: ${awsErrorName(error)}`, { cause: error });
  }
}

/** Each queue's depth, its DLQ's depth (the DLQ's delayed messages cannot exist: nothing sends to it with a delay) and its oldest message's age. */
export async function readQueues(client: SQSClient, cloudwatch: CloudWatchClient, queues: readonly WatchedQueue[], now: Date): Promise<QueueDepths[]> {
  // Only the queues with an age alarm are asked for their age: GetMetricData bills each metric requested.
  const aged = queues.filter((q) => q.maxAgeMs !== undefined);
  const [ages, depths] = await Promise.all([
    readOldestAges(cloudwatch, aged, now),
    Promise.all(
      queues.map(async (q) => ({
        name: q.name,
        depth: await sqsQueueDepth(client, q.url),
        deadLettered: await sqsQueueDepth(client, q.deadLetterUrl),
        ...(q.maxAgeMs !== undefined ? { maxAgeMs: q.maxAgeMs } : {}),
      })),
    ),
  ]);
  const ageOf = new Map(aged.map((q, i) => [q, ages[i]] as const));
  return depths.map((d, i) => {
    const age = ageOf.get(queues[i] as WatchedQueue);
    return age !== undefined ? { ...d, oldestAgeMs: age } : d;
  });
}

/**
 * Parses the watchdog's `QUEUE_ALARMS` environment value: `name=maxAgeSeconds` pairs, comma-separated,
 * in the order of `urls` and `deadLetterUrls` (WATCHED_QUEUE_URLS, DEAD_LETTER_QUEUE_URLS);
 * `name=-` watches a queue's depth and its DLQ without an age alarm.
 */
export function watchedQueuesOf(spec: string, urls: readonly string[], deadLetterUrls: readonly string[]): WatchedQueue[] {
  const pairs = spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (pairs.length !== urls.length || pairs.length !== deadLetterUrls.length)
    throw new HarnessError(`QUEUE_ALARMS names ${pairs.length} queues, but there are ${urls.length} queue URLs and ${deadLetterUrls.length} DLQ URLs`);
  return pairs.map((pair, i) => {
    const [name, seconds] = pair.split('=');
    const base = { name: name ?? '', url: urls[i] ?? '', deadLetterUrl: deadLetterUrls[i] ?? '' };
    if (name && seconds === '-') return base;
    const maxAge = Number(seconds);
    if (!name || !Number.isFinite(maxAge) || maxAge <= 0) throw new HarnessError(`QUEUE_ALARMS: "${pair}" is not name=maxAgeSeconds or name=-`);
    return { ...base, maxAgeMs: maxAge * 1000 };
  });
}
