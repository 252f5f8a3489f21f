// A mapping's batch above 10 in the simulation: SQS's ReceiveMessage returns at most 10 messages,
// so the poller gathers generate's batch (12 by default, up to 25: generate-mapping.ts) from
// several receives, each a billed request, and invokes the function once with the whole batch.
import type { SQSBatchResponse } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { SimSqsQueue } from '../../../sim/cloud/limits/sqs.ts';
import { SimLambda } from '../../../sim/cloud/sim-lambda.ts';
import { VirtualTime } from '../../../sim/cloud/virtual-time.ts';

describe('a mapping whose batch is above 10', () => {
  it.each([
    [12, 2],
    [25, 3],
  ])('takes a batch of %i in one invocation, received in %i requests of at most 10', async (batchSize, receives) => {
    const time = new VirtualTime();
    const lambda = new SimLambda(time);
    const fn = { name: 'generate', memoryMb: 512, timeoutMs: 300_000, coldStartMs: 0, overheadMs: 0 };
    lambda.define(fn);
    const queue = new SimSqsQueue<unknown>('generate', 1_800_000, 50);
    const batches: number[] = [];
    lambda.map({
      fn,
      queue,
      batchSize,
      batchWindowMs: 1_000,
      maxConcurrency: 2,
      handler: (event): Promise<SQSBatchResponse> => {
        batches.push(event.Records.length);
        return Promise.resolve({ batchItemFailures: [] });
      },
    });
    for (let i = 0; i < batchSize; i++) queue.send({ item: i }, 12, 0, {});
    lambda.wake(queue, 0);
    await time.drain();

    expect(batches).toEqual([batchSize]);
    expect(queue.requests.receive).toBe(receives);
    expect(queue.depth).toBe(0);
  });
});
