/**
 * Queue housekeeping the WorkQueue port has no words for: how much work a queue still holds
 * (the watchdog's "is the pipeline idle?"), and moving chosen messages from a dead-letter
 * queue back to its source queue (`polyeval remote redrive <run>`). SQS's own redrive
 * (StartMessageMoveTask) moves every message of a DLQ; here only one run's are moved, so the
 * DLQ is read, matching messages are re-sent (body and attributes unchanged) and deleted, and
 * the others are made visible again at the end.
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { HarnessError } from '../core/errors.ts';
import { awsErrorName } from './aws-errors.ts';

const DEPTH_ATTRIBUTES = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] as const;

/** Visible + in flight + delayed messages of a queue (approximate, as SQS reports them). */
export async function sqsQueueDepth(client: SQSClient, queueUrl: string): Promise<number> {
  try {
    const out = await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [...DEPTH_ATTRIBUTES] }));
    return DEPTH_ATTRIBUTES.reduce((sum, name) => sum + Number(out.Attributes?.[name] ?? 0), 0);
  } catch (error) {
    throw new HarnessError(`cannot read the depth of ${queueUrl}: ${awsErrorName(error)}`, { cause: error });
  }
}

export interface MoveOptions {
  client: SQSClient;
  from: string;
  to: string;
  /** Which messages to move, by body. */
  select: (body: string) => boolean;
  /** Stop after reading this many messages (a caller with a deadline). */
  maxRead?: number;
  /** How long read messages stay hidden while the DLQ is scanned. */
  visibilitySec?: number;
  /** Each ReceiveMessage's long-poll wait (1–20 s; default {@link LONG_POLL_SEC}). */
  waitSec?: number;
}

/** A long poll's wait: SQS's longest, which "queries all of the servers". */
export const LONG_POLL_SEC = 20;
/** Empty long polls in a row after which a queue that still reports messages is left (they are another reader's, or the count lags). */
export const EMPTY_POLLS = 3;

/**
 * Moves the selected messages of `from` to `to`; returns how many moved and how many were read.
 *
 * Reads by long polling until the queue reports no message left to read. A short poll
 * (`WaitTimeSeconds` 0) samples some of SQS's servers: "If the number of messages in the queue is
 * extremely small, you might not receive any messages in a particular ReceiveMessage response.
 * If this happens, repeat the request" (Amazon SQS API Reference, ReceiveMessage) — exactly a
 * DLQ holding a few messages, which a scan stopping at its first empty short poll missed. A long
 * poll queries every server; after an empty one the queue's own counts decide
 * (`ApproximateNumberOfMessages` + `…NotVisible`, less the messages this scan holds hidden), and
 * a queue that keeps reporting messages no poll returns is left after {@link EMPTY_POLLS}.
 */
export async function moveMessages(options: MoveOptions): Promise<{ moved: number; read: number }> {
  const { client, from, to } = options;
  const kept: string[] = [];
  const seen = new Set<string>();
  let moved = 0;
  try {
    // An empty queue (the usual DLQ) costs one GetQueueAttributes, no wait.
    let left = await unread(client, from, kept.length);
    for (let empties = 0; left > 0 && empties < EMPTY_POLLS && seen.size < (options.maxRead ?? 10_000);) {
      const out = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: from,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: options.visibilitySec ?? 60,
          WaitTimeSeconds: options.waitSec ?? LONG_POLL_SEC,
          MessageAttributeNames: ['All'],
        }),
      );
      const messages = (out.Messages ?? []).filter((m) => m.MessageId !== undefined && !seen.has(m.MessageId));
      if (messages.length === 0) {
        empties += 1;
        left = await unread(client, from, kept.length);
        continue;
      }
      empties = 0;
      for (const message of messages) {
        seen.add(message.MessageId ?? '');
        if (!options.select(message.Body ?? '')) {
          if (message.ReceiptHandle) kept.push(message.ReceiptHandle);
          continue;
        }
        await client.send(new SendMessageCommand({ QueueUrl: to, MessageBody: message.Body ?? '', MessageAttributes: message.MessageAttributes }));
        await client.send(new DeleteMessageCommand({ QueueUrl: from, ReceiptHandle: message.ReceiptHandle }));
        moved++;
      }
    }
  } catch (error) {
    throw new HarnessError(`cannot move messages from ${from} to ${to}: ${awsErrorName(error)}`, { cause: error });
  } finally {
    // The others go back at once, not after the visibility timeout.
    for (const handle of kept) {
      await client.send(new ChangeMessageVisibilityCommand({ QueueUrl: from, ReceiptHandle: handle, VisibilityTimeout: 0 })).catch(() => undefined);
    }
  }
  return { moved, read: seen.size };
}

/** Messages of `queueUrl` this scan has not read: visible and in flight, less the `held` it keeps hidden itself. */
async function unread(client: SQSClient, queueUrl: string, held: number): Promise<number> {
  const out = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  const count = (name: 'ApproximateNumberOfMessages' | 'ApproximateNumberOfMessagesNotVisible'): number => Number(out.Attributes?.[name] ?? 0);
  return count('ApproximateNumberOfMessages') + count('ApproximateNumberOfMessagesNotVisible') - held;
}

/**
 * Every message in `queueUrls`, read and left in place (the watchdog's look into the DLQs), each
 * as `keep` makes it from its body when it is read — the body itself (by default), or only what the
 * caller needs of it, so a queue of large messages is never held in memory whole.
 */
export async function peekMessages(client: SQSClient, queueUrls: readonly string[], waitSec?: number): Promise<string[]>;
export async function peekMessages<T>(client: SQSClient, queueUrls: readonly string[], waitSec: number | undefined, keep: (body: string) => T): Promise<T[]>;
export async function peekMessages<T>(
  client: SQSClient,
  queueUrls: readonly string[],
  waitSec = LONG_POLL_SEC,
  keep: (body: string) => T = (body) => body as T,
): Promise<T[]> {
  const kept: T[] = [];
  for (const url of queueUrls) {
    // Selecting none moves none; what was read is made visible again at once.
    await moveMessages({ client, from: url, to: url, select: (body) => (kept.push(keep(body)), false), waitSec });
  }
  return kept;
}
