// SQS specifics beyond the WorkQueue contract: Lambda event shapes and batch responses as the
// event source mapping applies them, poison messages, and per-entry send retries.
import { ReceiveMessageCommand, SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessError } from '#core/errors.ts';
import { parseAggregateMessage, type AggregateMessage } from '#app/cloud/messages.ts';
import { SqsWorkQueue, deliverSqsBatch, messageFromSqsRecord, queueArnFromUrl, toLambdaSqsEvent } from '#aws/index.ts';
import { FAKE_AWS, awsClientConfig, createQueueWithDlq, startMoto, type Moto, type QueueWithDlq } from '../../support/moto.ts';

let moto: Moto;
let sqs: SQSClient;
let queues = 0;

beforeAll(async () => {
  moto = await startMoto();
  sqs = new SQSClient(awsClientConfig(moto.endpoint));
});

afterAll(async () => {
  sqs?.destroy();
  await moto?.stop();
});

function createQueue(maxReceiveCount = 3): Promise<QueueWithDlq> {
  return createQueueWithDlq(sqs, `events-${++queues}`, { maxReceiveCount });
}

async function drainIds(url: string): Promise<string[]> {
  const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }));
  return (out.Messages ?? []).map((message) => message.Body ?? '');
}

describe('Lambda SQS events', () => {
  it('builds the records Lambda delivers, which read back as the messages sent', async () => {
    const { url, arn } = await createQueue();
    await new SqsWorkQueue<{ n: number }>({ client: sqs, queueUrl: url }).send([
      { id: 'r1/t1/0', body: { n: 1 } },
      { id: 'r1/t2/0', body: { n: 2 } },
    ]);
    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'] }),
    );

    const event = toLambdaSqsEvent(received.Messages ?? [], { queueArn: queueArnFromUrl(url, FAKE_AWS.region), region: FAKE_AWS.region });

    expect(queueArnFromUrl(url, FAKE_AWS.region)).toBe(arn);
    expect(event.Records).toHaveLength(2);
    for (const record of event.Records) {
      expect(record).toMatchObject({ eventSource: 'aws:sqs', eventSourceARN: arn, awsRegion: FAKE_AWS.region });
      expect(record.attributes.ApproximateReceiveCount).toBe('1');
      expect(record.receiptHandle).not.toBe('');
    }
    expect(event.Records.map((record) => messageFromSqsRecord<{ n: number }>(record)).sort((a, b) => a.body.n - b.body.n)).toEqual([
      { id: 'r1/t1/0', body: { n: 1 }, attempt: 1 },
      { id: 'r1/t2/0', body: { n: 2 }, attempt: 1 },
    ]);
  });

  it('deletes the successes of a batch response and redelivers the reported failures', async () => {
    const { url } = await createQueue();
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: ['a', 'b', 'c'].map((body) => ({ Id: body, MessageBody: body })) }));
    const handler = async (event: SQSEvent) => ({
      batchItemFailures: event.Records.filter((record) => record.body === 'b').map((record) => ({ itemIdentifier: record.messageId })),
    });

    const applied = await deliverSqsBatch({ client: sqs, queueUrl: url, region: FAKE_AWS.region, handler, retryVisibilitySec: 0 });
    let redelivered: SQSEvent | undefined;
    await deliverSqsBatch({
      client: sqs,
      queueUrl: url,
      region: FAKE_AWS.region,
      handler: async (event) => void (redelivered = event),
    });

    expect(applied?.deleted).toHaveLength(2);
    expect(applied?.failed).toHaveLength(1);
    expect(redelivered?.Records.map((record) => [record.body, record.attributes.ApproximateReceiveCount])).toEqual([['b', '2']]);
    expect(await drainIds(url)).toEqual([]);
  });

  it.each([
    ['throws', async (): Promise<void> => Promise.reject(new Error('boom'))],
    ['names an unknown message', async () => ({ batchItemFailures: [{ itemIdentifier: 'not-in-this-batch' }] })],
  ])('keeps the whole batch when the handler %s', async (_, handler) => {
    const { url } = await createQueue();
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: ['a', 'b'].map((body) => ({ Id: body, MessageBody: body })) }));

    const applied = await deliverSqsBatch({ client: sqs, queueUrl: url, region: FAKE_AWS.region, handler, retryVisibilitySec: 0 });

    expect(applied?.deleted).toEqual([]);
    expect((await drainIds(url)).sort()).toEqual(['a', 'b']);
  });

  it('answers undefined when the queue is empty', async () => {
    const { url } = await createQueue();

    expect(await deliverSqsBatch({ client: sqs, queueUrl: url, region: FAKE_AWS.region, handler: async () => undefined })).toBeUndefined();
  });
});

describe('SqsWorkQueue', () => {
  it('never hands a non-JSON poison message to the handler and lets it reach the DLQ', async () => {
    const { url, dlqUrl } = await createQueue(2);
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'this is not json' }));
    const errors: { error: unknown; attempt: number }[] = [];
    const queue = new SqsWorkQueue<unknown>({
      client: sqs,
      queueUrl: url,
      waitTimeSec: 1,
      retryVisibilitySec: 0,
      onHandlerError: (error, message) => errors.push({ error, attempt: message.attempt }),
    });
    queue.close();
    const handled: unknown[] = [];

    await queue.consume(async (message) => void handled.push(message), { concurrency: 1 });

    expect(handled).toEqual([]);
    expect(errors.map((e) => e.attempt)).toEqual([1, 2]);
    expect(errors.every((e) => e.error instanceof HarnessError && /not JSON/.test(e.error.message))).toBe(true);
    expect(await drainIds(dlqUrl)).toEqual(['this is not json']);
  });

  it('validates bodies with the message schema: an unversioned one is handled, a newer version reaches the DLQ by name', async () => {
    const { url, dlqUrl } = await createQueue(2);
    const newer = JSON.stringify({ runId: 'r2', part: 0, schema_version: 2 });
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify({ runId: 'r1', part: 0 }) }));
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: newer }));
    const errors: unknown[] = [];
    const queue = new SqsWorkQueue<AggregateMessage>({
      client: sqs,
      queueUrl: url,
      waitTimeSec: 1,
      retryVisibilitySec: 0,
      parse: parseAggregateMessage,
      onHandlerError: (error) => errors.push(error),
    });
    queue.close();
    const handled: AggregateMessage[] = [];

    await queue.consume(async (message) => void handled.push(message.body), { concurrency: 1 });

    expect(handled).toEqual([{ runId: 'r1', part: 0 }]);
    expect(errors).toHaveLength(2);
    for (const error of errors) expect(String(error)).toMatch(/aggregate message, field "schema_version": schema_version 2 is not one this polyeval reads/);
    expect(await drainIds(dlqUrl)).toEqual([newer]);
  });

  it('keeps a message invisible while a handler outlives the visibility timeout, so it is delivered once', async () => {
    const { url } = await createQueueWithDlq(sqs, `heartbeat-${++queues}`, { visibilityTimeoutSec: 3 });
    const queue = new SqsWorkQueue<string>({ client: sqs, queueUrl: url, waitTimeSec: 1, visibilityTimeoutSec: 3, heartbeatSec: 1 });
    await queue.send([{ id: 'slow', body: 'kotlin' }]);
    queue.close();
    const deliveries: number[] = [];

    // The handler runs twice as long as the visibility timeout.
    await queue.consume(
      async (message) => {
        deliveries.push(message.attempt);
        await new Promise((resolve) => setTimeout(resolve, 6_000));
      },
      { concurrency: 2 },
    );

    expect(deliveries).toEqual([1]);
  });

  it('resends only the entries SQS failed, until all are accepted', async () => {
    const sentBodies: string[] = [];
    let calls = 0;
    // A fake client: the first answer fails two entries as a server-side (retryable) fault.
    const client = {
      send: async (command: SendMessageBatchCommand) => {
        calls++;
        const entries = command.input.Entries ?? [];
        const failing = calls === 1 ? entries.filter((entry) => entry.Id === '3' || entry.Id === '7') : [];
        for (const entry of entries) if (!failing.includes(entry)) sentBodies.push(entry.MessageBody ?? '');
        return {
          Successful: [],
          Failed: failing.map((entry) => ({ Id: entry.Id, SenderFault: false, Code: 'InternalError' })),
        };
      },
    } as unknown as SQSClient;
    const queue = new SqsWorkQueue<number>({ client, queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q' });

    await queue.send(Array.from({ length: 12 }, (_, index) => ({ id: `m${index}`, body: index })));

    expect(sentBodies.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, index) => index));
    expect(calls).toBe(3);
  });

  it('raises a HarnessError naming the message SQS rejects as the sender’s fault', async () => {
    const client = {
      send: async () => ({ Successful: [], Failed: [{ Id: '1', SenderFault: true, Code: 'InvalidMessageContents' }] }),
    } as unknown as SQSClient;
    const queue = new SqsWorkQueue<number>({ client, queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q' });

    const sending = queue.send([
      { id: 'm0', body: 0 },
      { id: 'm1', body: 1 },
    ]);

    await expect(sending).rejects.toBeInstanceOf(HarnessError);
    await expect(sending).rejects.toThrow(/m1.*InvalidMessageContents/);
  });
});
