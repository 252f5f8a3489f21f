/**
 * The AWS side of the watchdog's queue alarms (layers/app/cloud/queue-alarms.ts): reading each
 * work queue and its DLQ with one GetQueueAttributes each, and keeping the alarm state in the
 * ledger table as one item (pk `WATCHDOG`, sk `QUEUE_ALARMS`; no run row uses that key, and
 * `listRuns` reads only pk `RUNS`).
 */
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

/** One watched work queue: its name, URL, its DLQ's URL and its age threshold. */
export interface WatchedQueue {
  name: string;
  url: string;
  deadLetterUrl: string;
  maxAgeMs: number;
}

/** One queue as read (layers/app/cloud/queue-alarms.ts `QueueReading`). */
export interface QueueDepths {
  name: string;
  depth: number;
  deadLettered: number;
  maxAgeMs: number;
}

/** Each queue's depth and its DLQ's depth (the DLQ's delayed messages cannot exist: nothing sends to it with a delay). */
export async function readQueues(client: SQSClient, queues: readonly WatchedQueue[]): Promise<QueueDepths[]> {
  return Promise.all(
    queues.map(async (q) => ({
      name: q.name,
      depth: await sqsQueueDepth(client, q.url),
      deadLettered: await sqsQueueDepth(client, q.deadLetterUrl),
      maxAgeMs: q.maxAgeMs,
    })),
  );
}

/**
 * Parses the watchdog's `QUEUE_ALARMS` environment value: `name=maxAgeSeconds` pairs, comma-separated,
 * in the order of `urls` and `deadLetterUrls` (WATCHED_QUEUE_URLS, DEAD_LETTER_QUEUE_URLS).
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
    const maxAge = Number(seconds);
    if (!name || !Number.isFinite(maxAge) || maxAge <= 0) throw new HarnessError(`QUEUE_ALARMS: "${pair}" is not name=maxAgeSeconds`);
    return { name, url: urls[i] ?? '', deadLetterUrl: deadLetterUrls[i] ?? '', maxAgeMs: maxAge * 1000 };
  });
}
