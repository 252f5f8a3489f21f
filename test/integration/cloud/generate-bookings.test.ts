// Issue 35 (DynamoDB writes per item): a generate invocation books its model calls' costs in ONE
// TransactWriteItems (layers/app/cloud/booking-batch.ts → DynamoRunLedger.addCosts), not one per
// call, and before its execute messages leave — on moto_server with the real generate handler,
// DynamoRunLedger and SqsWorkQueue. Every call is priced 0.125 USD (a binary fraction: sums exact).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, drainStage, queueDepth, startCloud, type Cloud } from './cloud-harness.ts';

const CALL_USD = 0.125;
let cloud: Cloud;

beforeAll(async () => {
  cloud = await startCloud({ costOf: () => Promise.resolve(() => CALL_USD) });
}, 60_000);

afterAll(async () => {
  await cloud?.stop();
});

const { startRun } = apiClient(() => cloud);

describe('generate books its batch’s model calls together', () => {
  it('one booking transaction for a batch of 4 calls, written before the one SendMessageBatch; the run’s cost exact', async () => {
    const events: string[] = [];
    cloud.dynamo.middlewareStack.add(
      (next) => async (args) => {
        const actions = (args.input as { TransactItems?: unknown[] }).TransactItems ?? [];
        const bookings = actions.filter((action) => JSON.stringify(action).includes('BOOK#')).length;
        if (bookings > 0) events.push(`book ${bookings} of ${actions.length} actions`);
        return next(args);
      },
      { step: 'initialize', name: 'countBookings' },
    );
    cloud.sqs.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { QueueUrl?: string; Entries?: unknown[] };
        if (input.QueueUrl === cloud.queues.python.url && /^SendMessage/.test(context.commandName ?? '')) events.push(`send ${input.Entries?.length ?? 1}`);
        return next(args);
      },
      { step: 'initialize', name: 'countExecuteSends' },
    );
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 4 });
    await drainStage(cloud, 'plan');
    // drainStage hands generate batches of 5: the run's 4 items come in one invocation.
    await drainStage(cloud, 'generate');

    // 4 booking rows and one count row in one transaction (was 4 transactions of 2), then the execute messages.
    expect(events).toEqual(['book 4 of 5 actions', 'send 4']);
    expect(await queueDepth(cloud.sqs, cloud.queues.python.url)).toBe(4);
    expect((await cloud.ledger.getRun(runId))?.costUsd).toBe(4 * CALL_USD);
  });
});
