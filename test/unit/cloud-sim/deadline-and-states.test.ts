// Lambda as the simulation plays it: an invocation ends at its timeout — what it would write
// later never happens, and its message is retried, then dead-lettered — and a function that
// starts Inactive (a VPC function on an idle stack: the judges as well as the runners) fails its
// event source mapping's first invoke, whose batch comes back after the visibility timeout.
import type { SQSBatchResponse } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { S3PrefixRates } from '../../../sim/cloud/limits/s3-prefix.ts';
import { SimSqsQueue, SQS_MAX_IN_FLIGHT } from '../../../sim/cloud/limits/sqs.ts';
import { REACTIVATION_MS } from '../../../sim/cloud/limits/function-state.ts';
import { SimLambda } from '../../../sim/cloud/sim-lambda.ts';
import { simSender } from '../../../sim/cloud/sim-sender.ts';
import { SimStore } from '../../../sim/cloud/sim-store.ts';
import { VirtualTime } from '../../../sim/cloud/virtual-time.ts';

/** The judge queue's: 6 × its 5-minute timeout (longer than a Pending function takes to come back). */
const VISIBILITY_MS = 30 * 60_000;

function setUp(timeoutMs: number) {
  const time = new VirtualTime();
  const lambda = new SimLambda(time);
  const fn = { name: 'judge', memoryMb: 1024, timeoutMs, coldStartMs: 0, overheadMs: 0 };
  lambda.define(fn);
  const queue = new SimSqsQueue<unknown>('judge', VISIBILITY_MS, 2);
  const out = new SimSqsQueue<unknown>('aggregate', VISIBILITY_MS, 5);
  const store = new SimStore(time, new S3PrefixRates(), () => 0.5);
  return { time, lambda, fn, queue, out, store };
}

describe('an invocation past its timeout', () => {
  it('writes nothing after its deadline, and its message is retried, then dead-lettered', async () => {
    const { time, lambda, fn, queue, out, store } = setUp(1_000);
    const send = simSender<unknown>(out, lambda);
    let invocations = 0;
    lambda.map({
      fn,
      queue,
      batchSize: 1,
      handler: async (): Promise<SQSBatchResponse> => {
        invocations += 1;
        await store.put('runs/r/early.json', 'before the deadline');
        time.spend(1_500);
        await store.put('runs/r/items/t/0.json', 'written too late');
        await send.send([{ id: 'a', body: { late: true } }]);
        return { batchItemFailures: [] };
      },
    });
    queue.send({ item: 1 }, 12, 0, {});
    lambda.wake(queue, 0);
    await time.drain();

    expect(invocations).toBe(2);
    expect(lambda.stats.timeouts).toBe(2);
    expect(await store.getText('runs/r/items/t/0.json')).toBeUndefined();
    expect(out.depth).toBe(0);
    // What it wrote in time stands, as on AWS.
    expect(await store.getText('runs/r/early.json')).toBe('before the deadline');
    expect(queue.dlq).toHaveLength(1);
  });
});

describe('a function that starts Inactive', () => {
  it("fails its mapping's first invoke: the batch comes back after the visibility timeout and is handled once the function is Active", async () => {
    const { time, lambda, fn, queue } = setUp(10_000);
    lambda.states.markInactive(fn.name);
    const handledAt: number[] = [];
    lambda.map({
      fn,
      queue,
      batchSize: 1,
      handler: (): Promise<SQSBatchResponse> => (handledAt.push(time.now()), Promise.resolve({ batchItemFailures: [] })),
    });
    queue.send({ item: 1 }, 12, 0, {});
    lambda.wake(queue, 0);
    await time.drain();

    expect(lambda.stats.notActive).toEqual({ judge: 1 });
    expect(handledAt).toHaveLength(1);
    expect(handledAt[0]).toBeGreaterThanOrEqual(Math.max(VISIBILITY_MS, REACTIVATION_MS));
    expect(queue.dlq).toHaveLength(0);
  });

  it('keeps polling after the failed invoke: messages sent all at once, and none after, are all handled (no send wakes the pollers again)', async () => {
    const { time, lambda, fn, queue } = setUp(10_000);
    lambda.states.markInactive(fn.name);
    let handled = 0;
    lambda.map({
      fn,
      queue,
      batchSize: 1,
      handler: (): Promise<SQSBatchResponse> => ((handled += 1), Promise.resolve({ batchItemFailures: [] })),
    });
    for (let item = 0; item < 20; item++) queue.send({ item }, 12, 0, {});
    lambda.wake(queue, 0);
    await time.drain();

    // Before the poller retried after an error, the 19 others stayed visible with nothing to poll them: the run never ended.
    expect(handled).toBe(20);
    expect(queue.depth).toBe(0);
    expect(queue.dlq).toHaveLength(0);
    // While the function was Pending the pollers' invokes failed too, each batch back after the visibility timeout.
    expect(lambda.stats.notActive.judge).toBeGreaterThan(1);
  });

  it('polls again when the queue had no room to receive (120,000 in flight): the messages behind them are handled once room comes back', async () => {
    const { time, lambda, fn, queue } = setUp(10_000);
    let handled = 0;
    lambda.map({
      fn,
      queue,
      batchSize: 10,
      handler: (event): Promise<SQSBatchResponse> => ((handled += event.Records.length), Promise.resolve({ batchItemFailures: [] })),
    });
    for (let item = 0; item < SQS_MAX_IN_FLIGHT + 5; item++) queue.send({ item }, 12, 0, {});
    // Another reader holds SQS's most in flight, and deletes them ten minutes later (no send, nothing of this mapping's completes).
    // Ten at a time, ReceiveMessage's most.
    const held = Array.from({ length: SQS_MAX_IN_FLIGHT / 10 }, () => queue.receive(10, 0)).flat();
    expect(held).toHaveLength(SQS_MAX_IN_FLIGHT);
    time.at(10 * 60_000, () => {
      for (const message of held) queue.delete(message);
    });
    lambda.wake(queue, 0);
    await time.drain();

    // Before, the mapping's first receive got nothing and no poll followed: the 5 were never handled.
    expect(queue.overLimit).toBeGreaterThan(0);
    expect(handled).toBe(5);
    expect(queue.depth).toBe(0);
  });
});
