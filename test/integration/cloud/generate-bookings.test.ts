// Issue 35 (DynamoDB writes per item): a generate invocation books its model calls' costs in ONE
// TransactWriteItems (layers/app/cloud/booking-batch.ts → DynamoRunLedger.addCosts), not one per
// call, and before its execute messages leave — on moto_server with the real generate handler,
// DynamoRunLedger and SqsWorkQueue. Every call is priced 0.125 USD (a binary fraction: sums exact).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { apiClient, drainStage, queueDepth, startCloud, VISIBILITY_SEC, type Cloud } from './cloud-harness.ts';

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

  it('a booking transaction DynamoDB refuses fails the batch transiently: a likert item (scored and recorded by generate itself) is not recorded, its message comes back, and its redelivery books and records it once', async () => {
    // The first booking transaction is refused with throughput exceeded, as the SDK throws it once its own retries are
    // spent (thrown here before the SDK's retry step, so not retried): a refusal a later attempt may clear.
    let refuse = 1;
    const bookings: number[] = [];
    cloud.dynamo.middlewareStack.add(
      (next) => async (args) => {
        const actions = (args.input as { TransactItems?: unknown[] }).TransactItems ?? [];
        if (actions.some((action) => JSON.stringify(action).includes('BOOK#'))) {
          if (refuse > 0) {
            refuse -= 1;
            throw new DynamoDBServiceException({
              name: 'ProvisionedThroughputExceededException',
              $fault: 'client',
              $metadata: { httpStatusCode: 400 },
              message: 'refused once',
            });
          }
          bookings.push(actions.length);
        }
        return next(args);
      },
      { step: 'initialize', name: 'refuseFirstBooking' },
    );
    const runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 4 });
    await drainStage(cloud, 'plan');
    await drainStage(cloud, 'generate');

    // Nothing recorded, nothing booked: on main a failed booking recorded the item SE with its cost unbooked.
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ recorded: 0, costUsd: 0 });
    expect(bookings).toEqual([]);

    // The messages come back after the visibility timeout; the redelivery books the 4 calls once and records each item once.
    await new Promise((resolve) => setTimeout(resolve, (VISIBILITY_SEC + 0.5) * 1000));
    await drainStage(cloud, 'generate');
    expect(bookings).toEqual([5]);
    const run = await cloud.ledger.getRun(runId);
    expect(run).toMatchObject({ recorded: 4, costUsd: 4 * CALL_USD });
    expect(run?.verdicts.SE ?? 0).toBe(0);
  });
  it('a booking DynamoDB refuses for good (AccessDenied: a broken deployment) records the items SE once, as a lone booking did: nothing comes back to call the model again', async () => {
    let denied = 0;
    cloud.dynamo.middlewareStack.add(
      (next) => async (args) => {
        const actions = (args.input as { TransactItems?: unknown[] }).TransactItems ?? [];
        if (actions.some((action) => JSON.stringify(action).includes('BOOK#'))) {
          denied += 1;
          throw new DynamoDBServiceException({
            name: 'AccessDeniedException',
            $fault: 'client',
            $metadata: { httpStatusCode: 400 },
            message: 'not authorized',
          });
        }
        return next(args);
      },
      { step: 'initialize', name: 'denyBookings' },
    );
    try {
      const runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 4 });
      await drainStage(cloud, 'plan');
      await drainStage(cloud, 'generate');
      expect(denied).toBe(1);
      const run = await cloud.ledger.getRun(runId);
      expect(run).toMatchObject({ recorded: 4, costUsd: 0 });
      expect(run?.verdicts.SE).toBe(4);
      // Nothing left to come back: the generate queue is empty after the visibility timeout.
      await new Promise((resolve) => setTimeout(resolve, (VISIBILITY_SEC + 0.5) * 1000));
      expect(await queueDepth(cloud.sqs, cloud.queues.generate.url)).toBe(0);
    } finally {
      cloud.dynamo.middlewareStack.remove('denyBookings');
    }
  });
});
