import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { RECURSION_HOP_LIMIT, recursionAllows } from '../../../sim/cloud/limits/recursion.ts';
import { SimSqsQueue } from '../../../sim/cloud/limits/sqs.ts';
import { SimLambda } from '../../../sim/cloud/sim-lambda.ts';
import { simSender } from '../../../sim/cloud/sim-sender.ts';
import { VirtualTime } from '../../../sim/cloud/virtual-time.ts';

describe('Lambda recursive loop detection', () => {
  it('lets a chain invoke a function 16 times and drops the 17th', () => {
    expect(RECURSION_HOP_LIMIT).toBe(16);
    expect(recursionAllows(16)).toBe(true);
    expect(recursionAllows(17)).toBe(false);
  });

  it('drops the SQS message of a function that sends to its own queue at each receive until maxReceiveCount, then SQS dead-letters it', async () => {
    const time = new VirtualTime();
    const lambda = new SimLambda(time, { recursionLimit: RECURSION_HOP_LIMIT });
    const fn = { name: 'loop', memoryMb: 128, timeoutMs: 10_000, coldStartMs: 0, overheadMs: 0 };
    lambda.define(fn);
    const visibilityMs = 60_000;
    const queue = new SimSqsQueue<unknown>('loop', visibilityMs, 3);
    const self = simSender<unknown>(queue, lambda);
    let invocations = 0;
    lambda.map({
      fn,
      queue,
      batchSize: 1,
      handler: async (event: SQSEvent): Promise<SQSBatchResponse> => {
        invocations += 1;
        // The loop stops itself at 100 (so a simulation without the limit ends, and fails below).
        if (invocations < 100) await self.send(event.Records.map((r) => ({ id: r.messageId, body: JSON.parse(r.body) as unknown })));
        return { batchItemFailures: [] };
      },
    });
    queue.send({ step: 0 }, 12, 0, {});
    lambda.wake(queue, 0);
    await time.drain();

    expect(invocations).toBe(RECURSION_HOP_LIMIT);
    // Dropped at its 1st, 2nd and 3rd receive, each a visibility timeout after the one before; the 4th receive moves it to the DLQ.
    expect(lambda.stats.recursionDropped).toBe(3);
    expect(queue.dlq).toHaveLength(1);
    expect(queue.depth).toBe(0);
    expect(time.now()).toBeGreaterThanOrEqual(3 * visibilityMs);
  });
});
