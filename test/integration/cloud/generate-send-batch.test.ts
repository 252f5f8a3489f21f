// Issue 35 (requests per item): generate sends a batch's execute messages in one SendMessageBatch
// (layers/app/cloud/send-gate.ts), not one request per item — on moto_server with the real
// generate handler and SqsWorkQueue; every item still reaches its execute queue, and a handler
// ends only once its message is sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { SqsWorkQueue } from '#aws/sqs-work-queue.ts';
import { BATCH_MAX_BYTES, SendGate } from '#app/cloud/send-gate.ts';
import { apiClient, drainStage, queueDepth, startCloud, type Cloud } from './cloud-harness.ts';

let cloud: Cloud;

beforeAll(async () => {
  cloud = await startCloud();
}, 60_000);

afterAll(async () => {
  await cloud?.stop();
});

const { startRun } = apiClient(() => cloud);

describe('generate sends its batch’s execute messages together', () => {
  it('one SendMessageBatch to the python queue for a batch of 4 items, all 4 delivered', async () => {
    const sends: string[] = [];
    cloud.sqs.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { QueueUrl?: string };
        if (input.QueueUrl === cloud.queues.python.url && /^SendMessage/.test(context.commandName ?? '')) sends.push(context.commandName!);
        return next(args);
      },
      { step: 'initialize', name: 'countExecuteSends' },
    );
    await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 4 });
    await drainStage(cloud, 'plan');
    // drainStage hands generate batches of 5: the run's 4 items come in one.
    await drainStage(cloud, 'generate');

    expect(sends).toEqual(['SendMessageBatchCommand']);
    expect(await queueDepth(cloud.sqs, cloud.queues.python.url)).toBe(4);
  });
});

describe('SendGate', () => {
  it('fails only the handlers whose queue’s send failed, and each after its send', async () => {
    const gate = new SendGate();
    const sent: string[][] = [];
    const good = gate.sender<string>({ send: (m) => (sent.push(m.map((x) => x.body)), Promise.resolve()) });
    const bad = gate.sender<string>({ send: () => Promise.reject(new Error('SQS refused')) });
    // As in generate, every handler starts before any sends (each first awaits the ledger and the model).
    const results = await Promise.allSettled([
      gate.run(async () => {
        await Promise.resolve();
        await good.send([{ id: 'a', body: 'a' }]);
      }),
      gate.run(async () => {
        await new Promise((r) => setTimeout(r, 20));
        await good.send([{ id: 'b', body: 'b' }]);
      }),
      gate.run(async () => {
        await Promise.resolve();
        await bad.send([{ id: 'c', body: 'c' }]);
      }),
      gate.run(() => Promise.resolve('nothing to send')),
    ]);
    expect(sent).toEqual([['a', 'b']]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  });

  it('one message SQS refuses fails its own handler only, not its batch-mates (real SqsWorkQueue on moto)', async () => {
    // moto validates every entry before sending any (moto/sqs/models.py send_message_batch): one
    // body over the queue's MaximumMessageSize refuses the whole call, as a SenderFault would.
    const created = await cloud.sqs.send(new CreateQueueCommand({ QueueName: 'gate-small', Attributes: { MaximumMessageSize: '1024' } }));
    const gate = new SendGate();
    const queue = gate.sender(new SqsWorkQueue<string>({ client: cloud.sqs, queueUrl: created.QueueUrl! }));
    const results = await Promise.allSettled(
      ['a', 'b'.repeat(4_000), 'c'].map((body) =>
        gate.run(async () => {
          await Promise.resolve();
          await queue.send([{ id: body.slice(0, 1), body }]);
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await queueDepth(cloud.sqs, created.QueueUrl!)).toBe(2);
  });

  it('splits a batch within SendMessageBatch’s 256 KiB total: five 100 KiB messages go in 3 calls', async () => {
    const gate = new SendGate();
    const calls: number[] = [];
    const queue = gate.sender<string>({
      send: (m) => (calls.push(m.reduce((sum, x) => sum + Buffer.byteLength(JSON.stringify(x.body)), 0)), Promise.resolve()),
    });
    const big = 'x'.repeat(100 * 1024);
    await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        gate.run(async () => {
          await Promise.resolve();
          await queue.send([{ id: `r/t/${n}`, body: big }]);
        }),
      ),
    );
    expect(calls).toHaveLength(3);
    for (const bytes of calls) expect(bytes).toBeLessThanOrEqual(BATCH_MAX_BYTES);
  });
});
