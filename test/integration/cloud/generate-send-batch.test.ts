// Issue 35 (requests per item): generate sends a batch's execute messages in one SendMessageBatch
// (layers/app/cloud/send-gate.ts), not one request per item — on moto_server with the real
// generate handler and SqsWorkQueue; every item still reaches its execute queue, and a handler
// ends only once its message is sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendGate } from '#app/cloud/send-gate.ts';
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
});
