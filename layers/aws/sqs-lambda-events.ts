/**
 * What Lambda's SQS event source mapping does, as functions: turn received messages into a
 * genuine `SQSEvent`, and apply the handler's `SQSBatchResponse` (delete the successes,
 * leave the failures to reappear after the visibility timeout). The moto end-to-end driver
 * uses them to invoke the real handlers the way AWS does; handlers use
 * {@link messageFromSqsRecord} to read a record.
 */
import { ChangeMessageVisibilityBatchCommand, DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import type { QueueMessage } from '../core/ports.ts';
import { HarnessError } from '../core/errors.ts';
import { ID_ATTRIBUTE, parseBody, type ParseBody } from './sqs-work-queue.ts';

/** `arn:aws:sqs:<region>:<account>:<name>` from a queue URL `https://host/<account>/<name>`. */
export function queueArnFromUrl(queueUrl: string, region: string): string {
  const [account, name] = new URL(queueUrl).pathname
    .split('/')
    .filter((part) => part !== '')
    .slice(-2);
  if (account === undefined || name === undefined) throw new HarnessError(`not an SQS queue URL: ${queueUrl}`);
  return `arn:aws:sqs:${region}:${account}:${name}`;
}

/**
 * Builds the `SQSEvent` Lambda would deliver for these messages. Receive them with
 * `MessageSystemAttributeNames: ['All']` and `MessageAttributeNames: ['All']` so the
 * attributes are real.
 */
export function toLambdaSqsEvent(messages: Message[], source: { queueArn: string; region: string }): SQSEvent {
  return { Records: messages.map((message) => toSqsRecord(message, source)) };
}

function toSqsRecord(message: Message, source: { queueArn: string; region: string }): SQSRecord {
  const system = message.Attributes ?? {};
  const now = String(Date.now());
  const record: SQSRecord = {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: system.ApproximateReceiveCount ?? '1',
      SentTimestamp: system.SentTimestamp ?? now,
      SenderId: system.SenderId ?? 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: system.ApproximateFirstReceiveTimestamp ?? now,
    },
    messageAttributes: toRecordAttributes(message),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: source.queueArn,
    awsRegion: source.region,
  };
  if (message.MD5OfMessageAttributes !== undefined) record.md5OfMessageAttributes = message.MD5OfMessageAttributes;
  return record;
}

function toRecordAttributes(message: Message): SQSMessageAttributes {
  const out: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    // Lambda spells the SDK's StringValue/BinaryValue in camelCase, with list fields present.
    out[name] = {
      dataType: value.DataType ?? 'String',
      stringValue: value.StringValue,
      binaryValue: value.BinaryValue === undefined ? undefined : Buffer.from(value.BinaryValue).toString('base64'),
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return out;
}

/** Reads one Lambda SQS record as the port's {@link QueueMessage}, its body validated by `parse`; throws HarnessError on a non-JSON body. */
export function messageFromSqsRecord<T = unknown>(record: SQSRecord, parse: ParseBody<T> = (body) => body as T): QueueMessage<T> {
  const id = record.messageAttributes[ID_ATTRIBUTE]?.stringValue ?? record.messageId;
  return { id, body: parse(parseBody(record.body, id)), attempt: Number(record.attributes.ApproximateReceiveCount) };
}

/** What the event source mapping did with one invocation's batch. */
export interface AppliedBatch {
  deleted: string[];
  failed: string[];
}

/**
 * Applies a handler's outcome as the event source mapping does (with
 * `ReportBatchItemFailures`): `void` or an empty `batchItemFailures` deletes every message;
 * listed ids stay; a thrown handler (`outcome: 'error'`) or an unknown/empty identifier
 * keeps the whole batch. `retryVisibilitySec` shortens the wait before redelivery.
 */
export async function applySqsBatchResponse(options: {
  client: SQSClient;
  queueUrl: string;
  messages: Message[];
  outcome: SQSBatchResponse | void | 'error';
  retryVisibilitySec?: number;
}): Promise<AppliedBatch> {
  const { client, queueUrl, messages, outcome } = options;
  const ids = new Set(messages.map((message) => message.MessageId ?? ''));
  let failedIds: Set<string>;
  if (outcome === 'error') {
    failedIds = ids;
  } else {
    const listed = outcome?.batchItemFailures.map((failure) => failure.itemIdentifier) ?? [];
    failedIds = listed.some((id) => id === '' || !ids.has(id)) ? ids : new Set(listed);
  }
  const toDelete = messages.filter((message) => !failedIds.has(message.MessageId ?? ''));
  const toRetry = messages.filter((message) => failedIds.has(message.MessageId ?? ''));
  if (toDelete.length > 0) {
    const entries = toDelete.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle }));
    const out = await client.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
    if ((out.Failed ?? []).length > 0) throw new HarnessError(`SQS DeleteMessageBatch failed on ${queueUrl}: ${out.Failed?.[0]?.Code}`);
  }
  if (toRetry.length > 0 && options.retryVisibilitySec !== undefined) {
    const entries = toRetry.map((message, index) => ({
      Id: String(index),
      ReceiptHandle: message.ReceiptHandle,
      VisibilityTimeout: options.retryVisibilitySec,
    }));
    await client.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
  }
  return { deleted: toDelete.map((m) => m.MessageId ?? ''), failed: toRetry.map((m) => m.MessageId ?? '') };
}

/**
 * One poll of the event source mapping: receive up to `batchSize` messages, invoke the
 * handler with a genuine `SQSEvent`, apply its batch response. Returns undefined when the
 * queue gave nothing.
 * @example
 * while ((await deliverSqsBatch({ client, queueUrl, region, handler })) !== undefined);
 */
export async function deliverSqsBatch(options: {
  client: SQSClient;
  queueUrl: string;
  region: string;
  handler: (event: SQSEvent) => Promise<SQSBatchResponse | void>;
  batchSize?: number;
  waitTimeSec?: number;
  visibilityTimeoutSec?: number;
  retryVisibilitySec?: number;
}): Promise<AppliedBatch | undefined> {
  const { client, queueUrl } = options;
  const received = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: Math.min(10, options.batchSize ?? 10),
      WaitTimeSeconds: options.waitTimeSec ?? 0,
      VisibilityTimeout: options.visibilityTimeoutSec,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
  );
  const messages = received.Messages ?? [];
  if (messages.length === 0) return undefined;
  const event = toLambdaSqsEvent(messages, { queueArn: queueArnFromUrl(queueUrl, options.region), region: options.region });
  let outcome: SQSBatchResponse | void | 'error';
  try {
    outcome = await options.handler(event);
  } catch {
    outcome = 'error';
  }
  const applied: Parameters<typeof applySqsBatchResponse>[0] = { client, queueUrl, messages, outcome };
  if (options.retryVisibilitySec !== undefined) applied.retryVisibilitySec = options.retryVisibilitySec;
  return applySqsBatchResponse(applied);
}
