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
}

/** Moves the selected messages of `from` to `to`; returns how many moved and how many were read. */
export async function moveMessages(options: MoveOptions): Promise<{ moved: number; read: number }> {
  const { client, from, to } = options;
  const kept: string[] = [];
  const seen = new Set<string>();
  let moved = 0;
  try {
    while (seen.size < (options.maxRead ?? 10_000)) {
      const out = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: from,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: options.visibilitySec ?? 60,
          WaitTimeSeconds: 0,
          MessageAttributeNames: ['All'],
        }),
      );
      const messages = (out.Messages ?? []).filter((m) => m.MessageId !== undefined && !seen.has(m.MessageId));
      if (messages.length === 0) break;
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

/** The bodies of every message in `queueUrls`, read and left in place (the watchdog's look into the DLQs). */
export async function peekMessages(client: SQSClient, queueUrls: readonly string[]): Promise<string[]> {
  const bodies: string[] = [];
  for (const url of queueUrls) {
    // Selecting none moves none; what was read is made visible again at once.
    await moveMessages({ client, from: url, to: url, select: (body) => (bodies.push(body), false) });
  }
  return bodies;
}
