/**
 * WorkQueue on Amazon SQS (DESIGN §4, §9). Delivery is at least once: a message is deleted
 * only after its handler resolves; a failing one reappears after the visibility timeout
 * (or at once, with `retryVisibilitySec: 0`) and the queue's redrive policy moves it to the
 * DLQ after `maxReceiveCount` deliveries. Message bodies are the JSON of `body`; the logical
 * id travels as the message attribute {@link ID_ATTRIBUTE}.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type Message,
  type SQSClient,
  type SendMessageBatchRequestEntry,
} from '@aws-sdk/client-sqs';
import type { QueueMessage, WorkQueue } from '../core/ports.ts';
import { HarnessError } from '../core/errors.ts';
import { fullJitterMs } from '../core/backoff.ts';
import { awsErrorName } from './aws-errors.ts';

/** Message attribute carrying the logical message id (`<run>/<task>/<sample>`). */
export const ID_ATTRIBUTE = 'polyeval_id';
const SEND_ATTEMPTS = 5;
const SEND_BACKOFF = { baseMs: 100, capMs: 5_000 };
/** Visible, in flight, delayed: the queue is drained when all three are zero. */
const COUNT_ATTRIBUTES = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] as const;

export interface SqsWorkQueueOptions {
  client: SQSClient;
  queueUrl: string;
  /** Visibility timeout requested on receive; defaults to the queue's own. */
  visibilityTimeoutSec?: number;
  /** Long-poll wait per ReceiveMessage (0–20 s). Default 20. */
  waitTimeSec?: number;
  /** When set, a failed message is made visible again after this many seconds (0 = at once). */
  retryVisibilitySec?: number;
  /**
   * When set, a message whose handler is still running is kept invisible: every
   * `heartbeatSec` its visibility is extended to `visibilityTimeoutSec` (default twice the
   * heartbeat), so a long execution (the Fargate lane) is not delivered a second time.
   */
  heartbeatSec?: number;
  /** Told about each failed delivery (for logging); the message is redelivered regardless. */
  onHandlerError?: (error: unknown, message: { id: string; attempt: number }) => void;
}

/**
 * Validates a received body (the message schemas of layers/app/cloud/messages.ts). A body it
 * refuses fails its delivery like a failed handler: redelivered, then dead-lettered.
 * Without it the handler gets the JSON value as sent (`T` should then be `unknown`).
 */
export type ParseBody<T> = (body: unknown) => T;

/**
 * SQS-backed {@link WorkQueue}.
 * @example
 * const queue = new SqsWorkQueue<WorkItem>({ client: new SQSClient({}), queueUrl });
 * await queue.send([{ id: 'r1/t1/0', body: item }]);
 */
export class SqsWorkQueue<T> implements WorkQueue<T> {
  readonly #options: SqsWorkQueueOptions;
  readonly #parse: ParseBody<T>;
  #closed = false;
  #stopped = false;

  constructor(options: SqsWorkQueueOptions & { parse?: ParseBody<T> }) {
    this.#options = options;
    this.#parse = options.parse ?? ((body) => body as T);
  }

  async send(messages: { id: string; body: T }[]): Promise<void> {
    for (let start = 0; start < messages.length; start += 10) {
      await this.#sendBatch(messages.slice(start, start + 10));
    }
  }

  close(): void {
    this.#closed = true;
  }

  /**
   * Graceful drain (a Fargate task told to stop): takes no new message, lets the handlers in
   * flight finish, and hands back at once (visibility 0) any message a poll already returned.
   * consume() then resolves without waiting for the rest of the queue.
   */
  stop(): void {
    this.#stopped = true;
  }

  /**
   * Long-polls with up to `concurrency` handlers in flight. Resolves once close() was called
   * and the queue holds no visible, in-flight or delayed message.
   */
  async consume(handler: (message: QueueMessage<T>) => Promise<void>, options: { concurrency: number }): Promise<void> {
    const concurrency = Math.max(1, Math.floor(options.concurrency));
    const inFlight = new Set<Promise<void>>();
    for (;;) {
      while (inFlight.size >= concurrency && !this.#stopped) await Promise.race(inFlight);
      if (this.#stopped) break;
      const received = await this.#receive(Math.min(10, concurrency - inFlight.size));
      if (this.#stopped) {
        await Promise.all(received.map((m) => this.#release(m)));
        break;
      }
      if (received.length === 0) {
        // Keep polling while handlers run: free slots take new (or re-visible) messages.
        if (inFlight.size === 0 && this.#closed && (await this.#isDrained())) break;
        if (this.#waitTimeSec() === 0) await sleep(100);
        continue;
      }
      for (const message of received) {
        const task = this.#handle(message, handler).finally(() => inFlight.delete(task));
        inFlight.add(task);
      }
    }
    await Promise.all(inFlight);
  }

  async #handle(message: Message, handler: (message: QueueMessage<T>) => Promise<void>): Promise<void> {
    let ok = false;
    const stopHeartbeat = this.#heartbeat(message);
    try {
      await handler(parseSqsMessage(message, this.#parse));
      ok = true;
    } catch (error) {
      // The handler's failure is the message's business: it is redelivered, then dead-lettered.
      const id = message.MessageAttributes?.[ID_ATTRIBUTE]?.StringValue ?? message.MessageId ?? '';
      this.#options.onHandlerError?.(error, { id, attempt: Number(message.Attributes?.ApproximateReceiveCount ?? '1') });
    } finally {
      stopHeartbeat();
    }
    if (ok) {
      const input = { QueueUrl: this.#options.queueUrl, ReceiptHandle: message.ReceiptHandle };
      await this.#sqs('DeleteMessage', () => this.#options.client.send(new DeleteMessageCommand(input)));
    } else if (this.#options.retryVisibilitySec !== undefined) {
      const input = {
        QueueUrl: this.#options.queueUrl,
        ReceiptHandle: message.ReceiptHandle,
        VisibilityTimeout: this.#options.retryVisibilitySec,
      };
      await this.#sqs('ChangeMessageVisibility', () => this.#options.client.send(new ChangeMessageVisibilityCommand(input)));
    }
  }

  /** Makes a message visible again now, for another consumer. */
  async #release(message: Message): Promise<void> {
    const input = { QueueUrl: this.#options.queueUrl, ReceiptHandle: message.ReceiptHandle, VisibilityTimeout: 0 };
    await this.#sqs('ChangeMessageVisibility', () => this.#options.client.send(new ChangeMessageVisibilityCommand(input))).catch(() => undefined);
  }

  /** Starts extending the message's visibility while its handler runs; returns the stop function. */
  #heartbeat(message: Message): () => void {
    const { heartbeatSec, visibilityTimeoutSec, queueUrl, client } = this.#options;
    if (heartbeatSec === undefined || heartbeatSec <= 0) return () => undefined;
    const input = { QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle, VisibilityTimeout: visibilityTimeoutSec ?? heartbeatSec * 2 };
    const timer = setInterval(() => {
      // A lost heartbeat only risks a redelivery, which the ledger's conditional write absorbs.
      client.send(new ChangeMessageVisibilityCommand(input)).catch(() => undefined);
    }, heartbeatSec * 1000);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Long polls while open; short ones once closed, so draining never waits 20 s per empty answer. */
  #waitTimeSec(): number {
    const configured = this.#options.waitTimeSec ?? 20;
    return this.#closed ? Math.min(1, configured) : configured;
  }

  async #receive(max: number): Promise<Message[]> {
    const command = new ReceiveMessageCommand({
      QueueUrl: this.#options.queueUrl,
      MaxNumberOfMessages: max,
      WaitTimeSeconds: this.#waitTimeSec(),
      VisibilityTimeout: this.#options.visibilityTimeoutSec,
      MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
      MessageAttributeNames: ['All'],
    });
    const out = await this.#sqs('ReceiveMessage', () => this.#options.client.send(command));
    return out.Messages ?? [];
  }

  async #isDrained(): Promise<boolean> {
    const command = new GetQueueAttributesCommand({ QueueUrl: this.#options.queueUrl, AttributeNames: [...COUNT_ATTRIBUTES] });
    const out = await this.#sqs('GetQueueAttributes', () => this.#options.client.send(command));
    return COUNT_ATTRIBUTES.every((name) => Number(out.Attributes?.[name] ?? '0') === 0);
  }

  async #sendBatch(batch: { id: string; body: T }[]): Promise<void> {
    // Batch entry ids must match [A-Za-z0-9_-]{1,80}; logical ids contain '/', so use indexes.
    let pending: SendMessageBatchRequestEntry[] = batch.map((message, index) => ({
      Id: String(index),
      MessageBody: JSON.stringify(message.body),
      MessageAttributes: { [ID_ATTRIBUTE]: { DataType: 'String', StringValue: message.id } },
    }));
    // Throttling, 5xx and network failures of the call itself are the SDK's retries (the client's
    // maxAttempts / retry mode); entries SQS failed inside a successful answer are not, so they
    // are resent here.
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await sleep(fullJitterMs(attempt + 1, SEND_BACKOFF));
      const command = new SendMessageBatchCommand({ QueueUrl: this.#options.queueUrl, Entries: pending });
      const out = await this.#sqs('SendMessageBatch', () => this.#options.client.send(command));
      const failed = out.Failed ?? [];
      const senderFault = failed.find((entry) => entry.SenderFault === true);
      if (senderFault !== undefined || (failed.length > 0 && attempt + 1 >= SEND_ATTEMPTS)) {
        const entry = senderFault ?? failed[0];
        const id = batch[Number(entry?.Id)]?.id ?? '?';
        throw new HarnessError(`SQS rejected message ${id} on ${this.#options.queueUrl}: ${entry?.Code ?? ''} ${entry?.Message ?? ''}`.trim());
      }
      const failedIds = new Set(failed.map((entry) => entry.Id));
      pending = pending.filter((entry) => failedIds.has(entry.Id));
    }
  }

  async #sqs<R>(operation: string, send: () => Promise<R>): Promise<R> {
    try {
      return await send();
    } catch (error) {
      throw new HarnessError(`SQS ${operation} failed on ${this.#options.queueUrl}: ${awsErrorName(error)}`, { cause: error });
    }
  }
}

/**
 * Turns a received SQS message (SDK shape) into a {@link QueueMessage}, its body validated by
 * `parse`. A body that is not JSON, or that `parse` refuses, throws: such a poison message is
 * retried and then dead-lettered.
 */
export function parseSqsMessage<T = unknown>(message: Message, parse: ParseBody<T> = (body) => body as T): QueueMessage<T> {
  const id = message.MessageAttributes?.[ID_ATTRIBUTE]?.StringValue ?? message.MessageId ?? '';
  return {
    id,
    body: parse(parseBody(message.Body ?? '', id)),
    attempt: Number(message.Attributes?.ApproximateReceiveCount ?? '1'),
  };
}

/** Parses a message body's JSON (not yet validated), naming the message when it is not JSON. */
export function parseBody(body: string, id: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch (cause) {
    throw new HarnessError(`SQS message ${id} has a body that is not JSON`, { cause });
  }
}
