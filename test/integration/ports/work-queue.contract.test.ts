// The WorkQueue contract (layers/core/ports.ts), run against every adapter: the in-process
// queue and SQS (with a DLQ redrive policy) on a real moto_server.
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueueMessage, WorkQueue } from '#core/ports.ts';
import { SqsWorkQueue, parseSqsMessage } from '#aws/index.ts';
import { InProcessWorkQueue } from '#local/index.ts';
import { awsClientConfig, createQueueWithDlq, startMoto, type Moto } from '../../support/moto.ts';

const MAX_ATTEMPTS = 3;
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

interface Body {
  task: string;
  sample: number;
}

interface Harness {
  queue: WorkQueue<Body>;
  /** Ids of the messages that ended in the dead-letter queue. */
  deadLetters(): Promise<string[]>;
}

async function createSqsHarness(): Promise<Harness> {
  const { url, dlqUrl } = await createQueueWithDlq(sqs, `work-${++queues}`, { maxReceiveCount: MAX_ATTEMPTS });
  const queue = new SqsWorkQueue<Body>({ client: sqs, queueUrl: url, waitTimeSec: 1, retryVisibilitySec: 0 });
  return {
    queue,
    deadLetters: async () => {
      const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'], WaitTimeSeconds: 0 }));
      return (out.Messages ?? []).map((message) => parseSqsMessage<Body>(message).id);
    },
  };
}

const adapters: { name: string; create: () => Promise<Harness> }[] = [
  {
    name: 'InProcessWorkQueue',
    create: async () => {
      const queue = new InProcessWorkQueue<Body>({ maxAttempts: MAX_ATTEMPTS });
      return { queue, deadLetters: async () => queue.deadLetters.map((dead) => dead.message.id) };
    },
  },
  { name: 'SqsWorkQueue', create: createSqsHarness },
];

function messages(count: number, run = 'r1'): { id: string; body: Body }[] {
  return Array.from({ length: count }, (_, index) => ({ id: `${run}/t${index}/0`, body: { task: `t${index}`, sample: 0 } }));
}

describe.each(adapters)('WorkQueue contract: $name', ({ create }) => {
  it('delivers every message with its id and body, then resolves once closed and drained', async () => {
    const { queue } = await create();
    const sent = messages(23);
    await queue.send(sent);
    queue.close();
    const received: QueueMessage<Body>[] = [];

    await queue.consume(async (message) => void received.push(message), { concurrency: 4 });

    expect(received.map(({ id, body }) => ({ id, body })).sort((a, b) => a.id.localeCompare(b.id))).toEqual([...sent].sort((a, b) => a.id.localeCompare(b.id)));
    expect(received.every((message) => message.attempt === 1)).toBe(true);
  });

  it('redelivers a message whose handler throws, with the attempt counted, until it succeeds', async () => {
    const { queue, deadLetters } = await create();
    await queue.send(messages(3));
    queue.close();
    const attempts: number[] = [];

    await queue.consume(
      async (message) => {
        if (message.id !== 'r1/t1/0') return;
        attempts.push(message.attempt);
        if (message.attempt < 2) throw new Error('transient');
      },
      { concurrency: 2 },
    );

    expect(attempts).toEqual([1, 2]);
    expect(await deadLetters()).toEqual([]);
  });

  it(`dead-letters a message that fails ${MAX_ATTEMPTS} times and still delivers the others`, async () => {
    const { queue, deadLetters } = await create();
    await queue.send(messages(4));
    queue.close();
    const poisonAttempts: number[] = [];
    const delivered = new Set<string>();

    await queue.consume(
      async (message) => {
        if (message.id === 'r1/t2/0') {
          poisonAttempts.push(message.attempt);
          throw new Error('poison');
        }
        delivered.add(message.id);
      },
      { concurrency: 3 },
    );

    expect(poisonAttempts).toEqual([1, 2, 3]);
    expect([...delivered].sort()).toEqual(['r1/t0/0', 'r1/t1/0', 'r1/t3/0']);
    expect(await deadLetters()).toEqual(['r1/t2/0']);
  });

  it('keeps consuming until closed, delivering messages sent after consumption started', async () => {
    const { queue } = await create();
    let seen: (id: string) => void = () => undefined;
    const firstSeen = new Promise<string>((resolve) => (seen = resolve));
    const received: string[] = [];
    const consuming = queue.consume(
      async (message) => {
        received.push(message.id);
        seen(message.id);
      },
      { concurrency: 2 },
    );

    await queue.send(messages(1, 'late'));
    await firstSeen;
    queue.close();
    await consuming;

    expect(received).toEqual(['late/t0/0']);
  });

  it('hands a later message to a free slot while another handler is still running', async () => {
    const { queue } = await create();
    let firstStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (firstStarted = resolve));
    let releaseFirst: () => void = () => undefined;
    const laterHandled = new Promise<void>((resolve) => (releaseFirst = resolve));
    const order: string[] = [];
    const consuming = queue.consume(
      async (message) => {
        if (message.id === 'r1/t0/0') {
          firstStarted();
          // Blocks until the later message was handled: a consumer that waits for it first never finishes.
          await laterHandled;
        } else {
          releaseFirst();
        }
        order.push(message.id);
      },
      { concurrency: 2 },
    );

    await queue.send(messages(1));
    await started;
    await queue.send(messages(1, 'later'));
    queue.close();
    await consuming;

    expect(order).toEqual(['later/t0/0', 'r1/t0/0']);
  });

  it('runs up to `concurrency` handlers at once and never more', async () => {
    const { queue } = await create();
    await queue.send(messages(6));
    queue.close();
    let running = 0;
    let peak = 0;
    let release: () => void = () => undefined;
    const threeRunning = new Promise<void>((resolve) => (release = resolve));

    // Each of the first three handlers waits until three run together: with fewer slots they never would.
    await queue.consume(
      async () => {
        running++;
        peak = Math.max(peak, running);
        if (running === 3) release();
        await threeRunning;
        running--;
      },
      { concurrency: 3 },
    );

    expect(peak).toBe(3);
  });
});
