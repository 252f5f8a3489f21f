// Reading a dead-letter queue to its end (the watchdog's look, `remote redrive`) with the real
// @aws-sdk/client-sqs against an SQS endpoint whose short polls may sample no message, as the
// ReceiveMessage reference says they may on a queue holding very few.
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { moveMessages, peekMessages } from '#aws/sqs-dead-letters.ts';
import { startSqsShortPollServer, type SqsShortPollServer } from '../../fakes/sqs-short-poll-server.ts';

let server: SqsShortPollServer | undefined;
let client: SQSClient | undefined;

afterEach(async () => {
  client?.destroy();
  await server?.close();
});

async function start(messages: string[]): Promise<{ server: SqsShortPollServer; client: SQSClient }> {
  server = await startSqsShortPollServer({ emptyShortPolls: 1 });
  for (const body of messages) server.send(body);
  client = new SQSClient({ endpoint: server.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  return { server, client };
}

describe('reading a dead-letter queue', () => {
  it('finds the two messages of a small DLQ by long polling, where a short poll may answer nothing', async () => {
    const { server, client } = await start(['{"runId":"r1","n":1}', '{"runId":"r1","n":2}']);
    const bodies = await peekMessages(client, [server.queueUrl], 1);
    expect(bodies.sort()).toEqual(['{"runId":"r1","n":1}', '{"runId":"r1","n":2}']);
    // Every receive was a long poll, and the messages are left in place, visible again.
    expect(server.calls.filter((c) => c.op === 'ReceiveMessage').every((c) => (c.wait ?? 0) > 0)).toBe(true);
    expect(server.bodies()).toHaveLength(2);
  });

  it('makes what it keeps of each message as that message is read, before the next receive (the watchdog holds no body)', async () => {
    const { server, client } = await start(['{"runId":"r3","n":1}', '{"runId":"r3","n":2}']);
    const receives = () => server.calls.filter((c) => c.op === 'ReceiveMessage').length;
    const keptAt: number[] = [];
    const kept = await peekMessages(client, [server.queueUrl], 1, (body) => (keptAt.push(receives()), (JSON.parse(body) as { n: number }).n));
    expect(kept.sort()).toEqual([1, 2]);
    // Both were kept while the scan still had a receive to make (the empty long poll that ends it):
    // a peek mapping the bodies only once it had read them all would have made every receive first.
    expect(keptAt.every((n) => n < receives())).toBe(true);
    expect(server.bodies()).toHaveLength(2);
  });

  it('stops once the queue reports none left, and reads an empty DLQ without polling it', async () => {
    const { server, client } = await start(['{"runId":"r2"}']);
    const read = await moveMessages({ client, from: server.queueUrl, to: server.queueUrl, select: () => false, waitSec: 1 });
    expect(read).toEqual({ moved: 0, read: 1 });
    // One poll with the message, one empty long poll; then the queue reports nothing it has not read.
    expect(server.calls.filter((c) => c.op === 'ReceiveMessage')).toHaveLength(2);

    const empty = await startSqsShortPollServer();
    const emptyClient = new SQSClient({ endpoint: empty.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    try {
      expect(await peekMessages(emptyClient, [empty.queueUrl])).toEqual([]);
      expect(empty.calls.map((c) => c.op)).toEqual(['GetQueueAttributes']);
    } finally {
      emptyClient.destroy();
      await empty.close();
    }
  });
});
