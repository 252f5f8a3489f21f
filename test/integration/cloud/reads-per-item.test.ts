// Issue 35 (reads per item): the stages' own reads on moto_server, through the real generate and
// execute handlers (the judge handing off to its runner asynchronously, 10 messages a batch as
// deployed). Each run's status is read once per invocation, not once per message and pass
// (status-once.ts); a judge's first delivery looks its item up once, right before recording,
// not in both of its passes (stages.ts Delivery). Every item is still recorded exactly once,
// when every batch is delivered twice at once and when an execute message of a recorded item
// comes again as a first delivery (at-least-once delivery's second copy).
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunSummary } from '#core/ports.ts';
import { keys } from '#core/run/keys.ts';
import { apiEvent } from './api-events.ts';
import { apiClient, deliverOnce, drainStage, drive, lambdaContext, startCloud, type Cloud } from './cloud-harness.ts';

/** Two tasks, three samples each: 6 items, one generate batch of 5 and one of 1, the judge's 10 at once. */
const SPEC = { benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 2, n: 3 };
const JUDGE_BATCH = 10;
const ITEMS = 6;

describe('reads per item of the generate and judge stages', () => {
  let cloud: Cloud;
  beforeAll(async () => {
    cloud = await startCloud({ handoff: {} });
  }, 120_000);
  afterAll(async () => {
    await cloud?.stop();
  });

  it('reads the run status once per invocation and each item document once in the judge, every item recorded once', async () => {
    const runStatus = vi.spyOn(cloud.ledger, 'runStatus');
    const getText = vi.spyOn(cloud.store, 'getText');
    const runId = await apiClient(() => cloud).startRun(SPEC);
    const stats = await drive(cloud, { judgeBatch: JUDGE_BATCH });

    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', items: ITEMS, recorded: ITEMS });
    expect(await cloud.store.list(keys.itemsPrefix(runId))).toHaveLength(ITEMS);
    // Every generate and judge invocation reads the run's status at most once (one run): it was read by
    // every message in generate and in both of the judge's passes, 3 a item (18 here).
    expect(runStatus.mock.calls.length).toBeLessThanOrEqual(stats.invocations.generate + stats.invocations.python);
    expect(runStatus.mock.calls.length).toBeLessThan(ITEMS * 3);
    // Item documents read: the judge's once (its continuation, right before recording; it read them in
    // both passes) and the aggregate's compaction — 2 an item, where it was 4, then 3: generate's first
    // look asks the ledger's item row, not the document (stages.ts generateWork).
    const itemReads = getText.mock.calls.filter(([key]) => key.startsWith(keys.itemsPrefix(runId))).length;
    expect(itemReads).toBeLessThanOrEqual(ITEMS * 2);
    runStatus.mockRestore();
    getText.mockRestore();
  }, 300_000);

  it('records once an item whose execute message comes again after it was recorded, as a first delivery or a redelivery', async () => {
    const runId = await apiClient(() => cloud).startRun({ ...SPEC, limit: 1, n: 1 });
    // Keep the execute message generate sends, to send it again once its item is recorded.
    const send = vi.spyOn(cloud.sqs, 'send');
    await drive(cloud, { judgeBatch: JUDGE_BATCH });
    const executeSends = send.mock.calls
      .map(([command]) => command.input as { QueueUrl?: string; Entries?: { MessageBody?: string }[] })
      .filter((input) => input.QueueUrl === cloud.queues.python.url && input.Entries !== undefined);
    send.mockRestore();
    const body = executeSends[0]?.Entries?.[0]?.MessageBody;
    expect(body).toBeDefined();
    const before = (await cloud.ledger.getRun(runId)) as RunSummary;
    expect(before).toMatchObject({ status: 'completed', recorded: 1 });
    const [key] = await cloud.store.list(keys.itemsPrefix(runId));
    const document = await cloud.store.getText(key!);

    // The copy is received once (ApproximateReceiveCount 1): its program runs, and is not recorded again.
    await cloud.sqs.send(new SendMessageCommand({ QueueUrl: cloud.queues.python.url, MessageBody: body }));
    const again = await drive(cloud, { judgeBatch: JUDGE_BATCH });
    expect(again.invocations.python).toBeGreaterThanOrEqual(2); // the copy's first pass and its runner's answer
    expect(again.failed.python).toBe(0);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ recorded: 1, verdicts: before.verdicts });
    expect(await cloud.store.getText(key!)).toBe(document);

    // A redelivered copy (ApproximateReceiveCount 2: a receive that was not deleted) looks late too with
    // the hand-off: its runner is invoked again (looking first on every redelivery cost more GETs than
    // it saved, stages.ts Delivery), and its continuation, looking before recording, records nothing.
    await cloud.sqs.send(new SendMessageCommand({ QueueUrl: cloud.queues.python.url, MessageBody: body }));
    const seen = await cloud.sqs.send(new ReceiveMessageCommand({ QueueUrl: cloud.queues.python.url, VisibilityTimeout: 0, WaitTimeSeconds: 1 }));
    expect(seen.Messages).toHaveLength(1);
    const runnerInvocations = cloud.handoff!.runner.invocationTypes.length;
    const redelivered = await drive(cloud, { judgeBatch: JUDGE_BATCH });
    expect(redelivered.failed.python).toBe(0);
    expect(cloud.handoff!.runner.invocationTypes).toHaveLength(runnerInvocations + 1);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ recorded: 1, verdicts: before.verdicts });
    expect(await cloud.store.getText(key!)).toBe(document);
  }, 300_000);

  it('reads the status afresh in every invocation: a cancel between two invocations of the same warm handlers is seen', async () => {
    const runId = await apiClient(() => cloud).startRun(SPEC);
    await drainStage(cloud, 'plan');
    const once = (stage: 'generate' | 'python', batchSize: number) => deliverOnce(cloud, stage, batchSize);
    // One generate invocation (5 items sent to the judge) and one judge invocation (1 item handed off):
    // both handlers have read the run `running`.
    expect((await once('generate', 5))?.failed).toEqual([]);
    expect((await once('python', 1))?.failed).toEqual([]);
    const runnerInvocations = cloud.handoff!.runner.invocationTypes.length;
    expect(runnerInvocations).toBeGreaterThan(0);
    await cloud.api(apiEvent('POST', `/runs/${runId}/cancel`), lambdaContext('api'));
    await drive(cloud, { judgeBatch: JUDGE_BATCH });
    // The same handler objects' next invocations skip the run: generate's last item, the judge's other
    // four messages and the continuation of the runner's answer; nothing is recorded, no runner invoked.
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'cancelled', recorded: 0 });
    expect(await cloud.store.list(keys.itemsPrefix(runId))).toEqual([]);
    expect(cloud.handoff!.runner.invocationTypes).toHaveLength(runnerInvocations);
  }, 300_000);

  it('records each item once when every judge batch of 10 is delivered twice at once', async () => {
    const runId = await apiClient(() => cloud).startRun(SPEC);
    await drive(cloud, { judgeBatch: JUDGE_BATCH, duplicate: true });
    const run = (await cloud.ledger.getRun(runId)) as RunSummary;
    expect(run).toMatchObject({ status: 'completed', items: ITEMS, recorded: ITEMS });
    expect(Object.values(run.verdicts).reduce((a, b) => a + (b ?? 0), 0)).toBe(ITEMS);
    expect(await cloud.store.list(keys.itemsPrefix(runId))).toHaveLength(ITEMS);
  }, 300_000);
});
