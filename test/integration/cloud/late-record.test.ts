// A record that arrives after the watchdog closed its run (`completed_with_missing`), on
// moto_server with the real handlers. Two items are missing when the watchdog looks: one is lost
// for good (its message deleted), the other is held outside every queue — as a runner's event
// waits in Lambda's asynchronous queue — and delivered after the close. The late record is
// stored and counted, and the run is aggregated again: its summary counts the item, lists only
// the lost one, and `remote status`'s reason says 1 of 4. (All of a run's missing items coming
// back late completes it: run-control.test.ts, after a redrive.) The same for a code sample
// recorded by its judge.
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummaryDocument } from '#core/report/aggregate.ts';
import { keys } from '#core/run/keys.ts';
import { apiEvent } from './api-events.ts';
import { queueArnFromUrl, toLambdaSqsEvent } from '#aws/index.ts';
import { FAKE_AWS } from '../../support/moto.ts';
import { apiClient, drainStage, drive, lambdaContext, startCloud, watchdogAt, type Cloud } from './cloud-harness.ts';

let cloud: Cloud;

beforeAll(async () => {
  cloud = await startCloud();
}, 60_000);

afterAll(async () => {
  await cloud?.stop();
});

const { call, startRun } = apiClient(() => cloud);

/** Takes one generate message out of the queue (deleted there), returning its body and item id. */
async function takeGenerateMessage(runId: string): Promise<{ body: string; id: string; taskId: string; sample: number }> {
  const out = await cloud.sqs.send(new ReceiveMessageCommand({ QueueUrl: cloud.queues.generate.url, MaxNumberOfMessages: 1 }));
  const message = out.Messages?.[0];
  await cloud.sqs.send(new DeleteMessageCommand({ QueueUrl: cloud.queues.generate.url, ReceiptHandle: message?.ReceiptHandle }));
  const item = JSON.parse(message?.Body ?? '{}') as { taskId: string; sample: number };
  return { body: message?.Body ?? '', id: `${runId}/${item.taskId}/${item.sample}`, taskId: item.taskId, sample: item.sample };
}

async function summaryOf(runId: string): Promise<RunSummaryDocument> {
  return JSON.parse((await cloud.store.getText(keys.summary(runId))) ?? '{}') as RunSummaryDocument;
}

describe('a record that arrives after its run was closed as completed_with_missing', () => {
  it('is stored and counted, and the run is aggregated again: the summary and the status count it', async () => {
    const runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 4 });
    await drainStage(cloud, 'plan');
    const lost = await takeGenerateMessage(runId);
    const late = await takeGenerateMessage(runId);
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'running', items: 4, recorded: 2 });

    expect((await watchdogAt(cloud, 31)).actions).toEqual([{ runId, action: 'aggregate', recorded: 2, items: 4, deadLettered: 0 }]);
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed_with_missing', reason: expect.stringMatching(/^2 of 4 items never recorded/) });
    expect((await summaryOf(runId)).missing?.sort()).toEqual([lost.id, late.id].sort());

    // The held item comes back while the watchdog's aggregation still runs (status aggregating) and is recorded: its late
    // message is not aggregated beside that one (whose read may predate the record and whose summary may land last) but
    // handed back to SQS, to be judged once the run is closed again.
    const closed = await cloud.ledger.getRun(runId);
    await cloud.ledger.setStatus(runId, 'aggregating');
    await cloud.sqs.send(new SendMessageCommand({ QueueUrl: cloud.queues.generate.url, MessageBody: late.body }));
    await drainStage(cloud, 'generate');
    const got = await cloud.sqs.send(new ReceiveMessageCommand({ QueueUrl: cloud.queues.aggregate.url, MaxNumberOfMessages: 1 }));
    const message = got.Messages?.[0];
    expect(JSON.parse(message?.Body ?? '{}')).toMatchObject({ runId, allowMissing: true, late: true });
    const source = { queueArn: queueArnFromUrl(cloud.queues.aggregate.url, FAKE_AWS.region), region: FAKE_AWS.region };
    const response = await cloud.handlers.aggregate(toLambdaSqsEvent([message ?? {}], source), lambdaContext('aggregate'));
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: message?.MessageId }]);
    expect((await summaryOf(runId)).missing).toHaveLength(2);
    // The watchdog's aggregation ends; the message comes back (here sent again, not waiting out its visibility timeout).
    await cloud.sqs.send(new DeleteMessageCommand({ QueueUrl: cloud.queues.aggregate.url, ReceiptHandle: message?.ReceiptHandle }));
    await cloud.ledger.setStatus(runId, 'completed_with_missing', closed?.reason);
    await cloud.sqs.send(new SendMessageCommand({ QueueUrl: cloud.queues.aggregate.url, MessageBody: message?.Body ?? '' }));
    await drive(cloud);

    const run = await cloud.ledger.getRun(runId);
    expect(run).toMatchObject({ status: 'completed_with_missing', recorded: 3 });
    expect(run?.reason).toMatch(/^1 of 4 items never recorded.*0 dead-lettered .*, 1 lost/);
    expect(await cloud.store.exists(keys.item(runId, late.taskId, late.sample))).toBe(true);
    const summary = await summaryOf(runId);
    expect(summary).toMatchObject({ status: 'completed_with_missing', items: 3, missing: [lost.id], lost: [lost.id], dead_lettered: [] });
    const metrics = await call(apiEvent('GET', `/runs/${runId}/metrics`));
    expect(metrics.body).toMatchObject({ items: 3, missing: [lost.id] });

    // Another late message with nothing recorded since (a burst's second record): skipped, the summary left as it is.
    await cloud.sqs.send(
      new SendMessageCommand({
        QueueUrl: cloud.queues.aggregate.url,
        MessageBody: JSON.stringify({ schema_version: 1, runId, allowMissing: true, late: true }),
      }),
    );
    await drive(cloud);
    expect((await summaryOf(runId)).completed_at).toBe(summary.completed_at);
  }, 180_000);

  it('counts a late code sample the same way: recorded by its judge, the run aggregated again', async () => {
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 3 });
    await drainStage(cloud, 'plan');
    const lost = await takeGenerateMessage(runId);
    await drainStage(cloud, 'generate');
    // One sample's execute message held outside every queue while the watchdog looks.
    const out = await cloud.sqs.send(new ReceiveMessageCommand({ QueueUrl: cloud.queues.python.url, MaxNumberOfMessages: 1 }));
    const held = out.Messages?.[0];
    await cloud.sqs.send(new DeleteMessageCommand({ QueueUrl: cloud.queues.python.url, ReceiptHandle: held?.ReceiptHandle }));
    await drive(cloud);
    expect((await watchdogAt(cloud, 31)).actions).toEqual([{ runId, action: 'aggregate', recorded: 1, items: 3, deadLettered: 0 }]);
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed_with_missing', reason: expect.stringMatching(/^2 of 3 items never recorded/) });

    await cloud.sqs.send(new SendMessageCommand({ QueueUrl: cloud.queues.python.url, MessageBody: held?.Body ?? '' }));
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({
      status: 'completed_with_missing',
      recorded: 2,
      reason: expect.stringMatching(/^1 of 3 items never recorded.*, 1 lost/),
    });
    expect(await summaryOf(runId)).toMatchObject({ items: 2, missing: [lost.id], lost: [lost.id] });
  }, 180_000);
});
