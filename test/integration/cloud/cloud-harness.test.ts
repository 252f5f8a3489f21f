// The cloud harness's driver itself (cloud-harness.ts drive()), on moto_server with the runner
// hand-off: drive() must not report a pipeline drained while the runner's record is still on its
// way to the answers queue, and it names a message that went to a dead-letter queue.
//
// Why (session 16, issue-35r): runner-handoff.test.ts's batch cases ended, at load 10–13, with
// the run `running` and nothing recorded, the runner's first record left unread in the answers
// queue (no dead letters; the judge invoked once). drive() read every queue's depth and only then
// asked whether the runner was idle; a record that landed between the answers queue's read and
// that question was missed. On a loaded machine a moto read takes long enough for the runner to
// finish inside it. Here one read of the answers queue made while the runner works is answered
// only once the runner's record has landed — the loaded machine's timing, every time.
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, drive, startCloud, type Cloud } from './cloud-harness.ts';

const SPEC = { benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 1 };

/** Resolves once `ready()` holds (polled), or after `ms`. */
async function until(ready: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!ready() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("drive() and the runner's records (the hand-off's answers queue)", () => {
  let cloud: Cloud;
  /** Reads of the answers queue's depth answered while the runner was working. */
  let readsWhileBusy = 0;
  beforeAll(async () => {
    cloud = await startCloud({ handoff: {} });
    const answersUrl = cloud.handoff?.answers.url;
    // A slow moto: the depth of the answers queue, read while the runner works, reaches the driver
    // only after the runner's record has landed there (what a loaded machine does some of the time).
    cloud.sqs.middlewareStack.add(
      (next, context) => async (args) => {
        const out = await next(args);
        const input = args.input as { QueueUrl?: string };
        const runner = cloud.handoff?.runner;
        if (context.commandName === 'GetQueueAttributesCommand' && input.QueueUrl === answersUrl && runner && !runner.idle) {
          readsWhileBusy += 1;
          await until(() => runner.idle, 60_000);
        }
        return out;
      },
      { step: 'initialize', name: 'slowAnswersDepth' },
    );
  }, 120_000);
  afterAll(async () => {
    await cloud?.stop();
  });

  it('returns only once the runner is idle and its record consumed: the run completes even when a queue read outlasts the runner', async () => {
    const runId = await apiClient(() => cloud).startRun(SPEC);
    const stats = await drive(cloud, { judgeBatch: 10 });
    // Both judge passes ran: the execute message's (hand-off) and the runner's record's (verdict).
    expect(stats.invocations.python).toBeGreaterThanOrEqual(2);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', items: 1, recorded: 1 });
    // drive() reads the queues only when the runner is idle, so nothing of it is read in the window.
    expect(readsWhileBusy).toBe(0);
    expect(stats.deadLettered).toEqual([]);
  }, 300_000);

  it('names the messages that went to a dead-letter queue, and with failOnDeadLetters fails on them', async () => {
    const judge = cloud.handlers.python;
    // A judge that crashes on every message: each execute message is received MAX_RECEIVE times, then dead-lettered.
    cloud.handlers.python = (event: SQSEvent) => Promise.resolve({ batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) });
    try {
      const runId = await apiClient(() => cloud).startRun(SPEC);
      const stats = await drive(cloud);
      expect(stats.deadLettered).toHaveLength(1);
      expect(stats.deadLettered[0]).toMatchObject({ queue: 'python' });
      expect(Number(stats.deadLettered[0]?.receiveCount)).toBeGreaterThanOrEqual(3); // SQS's count as the DLQ holds it (drive's own look adds one)
      expect(stats.deadLettered[0]?.body).toContain(runId);
      expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'running', recorded: 0 });

      // The next run's message dead-letters too: failOnDeadLetters says so instead of returning (only what this drive added is named).
      const second = await apiClient(() => cloud).startRun(SPEC);
      await expect(drive(cloud, { failOnDeadLetters: true })).rejects.toThrow(
        new RegExp(`1 message\\(s\\) went to a dead-letter queue: python .*ApproximateReceiveCount \\d+.*${second}`),
      );
    } finally {
      cloud.handlers.python = judge;
    }
  }, 300_000);

  it('fails, naming the runner, when the runner stays busy instead of waiting out the test', async () => {
    const runner = cloud.handoff?.runner;
    const environment = runner?.environments.at(-1);
    expect(environment?.pid, 'the first case left a runtime waiting for its next event').toBeDefined();
    expect(environment?.exit).toBeUndefined();
    // The runtime stopped (as a hung process): the next event is handed to it and never answered.
    process.kill(environment?.pid as number, 'SIGSTOP');
    try {
      const runId = await apiClient(() => cloud).startRun(SPEC);
      const started = Date.now();
      await expect(drive(cloud, { judgeBatch: 10, runnerStuckMs: 3_000 })).rejects.toThrow(
        /drive\(\): the runner has been busy for 3 s with nothing else to deliver \(invoked \d+×, answered \d+×\)/,
      );
      expect(Date.now() - started).toBeLessThan(60_000);
      process.kill(environment?.pid as number, 'SIGCONT');
      // Resumed, it answers; the run completes.
      await drive(cloud, { judgeBatch: 10 });
      expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', recorded: 1 });
    } finally {
      process.kill(environment?.pid as number, 'SIGCONT');
    }
  }, 300_000);
});
