// The Lambda judge's asynchronous hand-off end to end on moto_server: the python judge's real
// handler (functions/execute/handler.ts with RUNNER_HANDOFF=async, judge-runner.ts) invokes its
// runner with InvocationType Event through the real Lambda client; a local Lambda service
// (test/fakes/lambda-service.ts) runs the runner's invocation code and sends each invocation
// record to an answers queue on moto, which the driver delivers to the same judge handler, as
// the deployed second event source mapping does (infra/executors.ts, runners.ts). The records
// in S3 and the ledger's counts must equal a synchronous judge's; a runner whose event ages out
// is retried once, then SE, and never lost; duplicated deliveries are recorded once.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '#core/ports.ts';
import { keys } from '#core/run/keys.ts';
import { isDestinationRecord, type Handoff } from '#app/cloud/runner-handoff.ts';
import { apiEvent } from './api-events.ts';
import { apiClient, drive, queueDepth, startCloud, watchdogAt, type Cloud } from './cloud-harness.ts';

const SPEC = { benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 3 };

/** Each item's record as the judge wrote it to S3, without what differs between two runs of the same items (ids and times). */
async function records(cloud: Cloud, runId: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const key of (await cloud.store.list(keys.itemsPrefix(runId))).sort()) {
    const text = (await cloud.store.getText(key)) ?? '';
    out.push(stable(JSON.parse(text) as Record<string, unknown>, runId));
  }
  return out;
}

const VARIABLE = /(Ms|Kb|_ms|_kb|At|_at|time|Time|runId|run_id)$/;
function stable(value: Record<string, unknown>, runId: string): Record<string, unknown> {
  const text = JSON.stringify(value, (key, v: unknown) => (VARIABLE.test(key) ? undefined : v))
    .split(runId)
    .join('<run>');
  return JSON.parse(text) as Record<string, unknown>;
}

async function runOn(cloud: Cloud, spec: Record<string, unknown>, duplicate = false, judgeBatch?: number): Promise<string> {
  const runId = await apiClient(() => cloud).startRun(spec);
  await drive(cloud, { duplicate, failOnDeadLetters: true, ...(judgeBatch ? { judgeBatch } : {}) });
  return runId;
}

/** The Event invocations' payloads since `from`: each a single hand-off (`handoff`) or a batch (`handoffs`, one per program). */
function events(cloud: Cloud, from = 0): { programs: number; tasks: Set<string> }[] {
  return (cloud.handoff?.runner.payloads.slice(from) ?? []).map((text) => {
    const event = JSON.parse(text) as { handoff?: Handoff; handoffs?: Handoff[]; request: { programs?: unknown[] } };
    const handoffs = event.handoffs ?? (event.handoff ? [event.handoff] : []);
    expect(event.request.programs?.length ?? 1).toBe(handoffs.length);
    return { programs: handoffs.length, tasks: new Set(handoffs.map((h) => (h.message as { item: { taskId: string } }).item.taskId)) };
  });
}

// The two batch-retry cases below ended, on a machine at load 10–13 (two reviewers' runs and one CI
// run, session 15), with the run `running` and nothing recorded; they were retried for a while
// (LOAD_FLAKE_RETRY, 2ee1410). The cause was the harness, not the hand-off (session 16, issue-35r):
// drive() read every queue's depth and only then asked whether the runner was idle, so a runner
// record that landed during those reads was left unread in the answers queue and drive() returned
// (the judge invoked once; no dead letters — the suspected 1 s visibility played no part: drive()
// runs one handler at a time, so a live message is never received twice). drive() now asks first;
// cloud-harness.test.ts holds the window open and fails without that. runOn also fails on a
// dead-lettered message, naming it, rather than end with the run `running`.

/** The record Lambda sends when it gives an event up (EventAgeExceeded): no response, never invoked. */
function agedOut(record: Record<string, unknown>): Record<string, unknown> {
  return {
    ...record,
    requestContext: { ...(record.requestContext as Record<string, unknown>), condition: 'EventAgeExceeded', approximateInvokeCount: 0 },
    responseContext: undefined,
    responsePayload: undefined,
  };
}

/** Two tasks, three samples each: the judge takes up to 10 messages at once, as deployed (infra/executors.ts JUDGE_BATCH). */
const SAMPLES = { ...SPEC, limit: 2, n: 3 };
const JUDGE_BATCH = 10;

describe('the judge hands off to its runner asynchronously (execute handler → answers queue → S3 and the ledger)', () => {
  let sync: Cloud;
  let async: Cloud;
  let syncRun: string;
  let asyncRun: string;

  beforeAll(async () => {
    [sync, async] = await Promise.all([startCloud(), startCloud({ handoff: {} })]);
    syncRun = await runOn(sync, SPEC);
    asyncRun = await runOn(async, SPEC);
  }, 300_000);

  afterAll(async () => {
    await Promise.all([sync?.stop(), async?.stop()]);
  });

  it('records the same items, verdicts and ledger counts as the synchronous judge, the runner invoked only with Event', async () => {
    const syncLedger = (await sync.ledger.getRun(syncRun)) as RunSummary;
    const asyncLedger = (await async.ledger.getRun(asyncRun)) as RunSummary;
    expect(syncLedger).toMatchObject({ status: 'completed', items: 3, recorded: 3 });
    expect(asyncLedger).toMatchObject({ status: 'completed', items: syncLedger.items, recorded: syncLedger.recorded, verdicts: syncLedger.verdicts });
    expect(await async.ledger.recordedItems(asyncRun)).toHaveProperty('size', 3);
    const [a, s] = [await records(async, asyncRun), await records(sync, syncRun)];
    expect(a).toHaveLength(3);
    // The one field that differs says where the programs ran: the runner function (lambda-runner.ts).
    const asyncText = JSON.stringify(a);
    const syncText = JSON.stringify(s);
    const labels = (text: string) => [...text.matchAll(/"isolation":"([^"]*)"/g)].map((m) => m[1]);
    expect(labels(syncText).length).toBeGreaterThanOrEqual(3);
    expect(labels(asyncText)).toEqual(labels(syncText).map((label) => `lambda-runner+${label}`));
    expect(JSON.parse(asyncText.split('"isolation":"lambda-runner+').join('"isolation":"'))).toEqual(s);
    const runner = async.handoff?.runner;
    expect(runner?.invocationTypes.length).toBeGreaterThanOrEqual(3); // at least one hand-off per item
    expect(new Set(runner?.invocationTypes)).toEqual(new Set(['Event'])); // the judge never waited on its runner
  });

  it('records each item once when every judge message and every record is delivered twice', async () => {
    const before = async.handoff?.runner.invocationTypes.length ?? 0;
    const runId = await runOn(async, { ...SPEC, limit: 2 }, true);
    // Each delivery of an item hands off: at least two Event invocations per item, each record continued twice.
    expect(async.handoff?.runner.invocationTypes.slice(before).filter((t) => t === 'Event').length).toBeGreaterThanOrEqual(4);
    const run = (await async.ledger.getRun(runId)) as RunSummary;
    expect(run).toMatchObject({ status: 'completed', items: 2, recorded: 2, verdicts: { OK: 2 } });
    expect(await async.ledger.recordedItems(runId)).toHaveProperty('size', 2);
    expect(await async.store.list(keys.itemsPrefix(runId))).toHaveLength(2);
  }, 300_000);
});

describe('a runner invocation Lambda gives up on (EventAgeExceeded: a record with no response)', () => {
  let cloud: Cloud;
  beforeAll(async () => {
    cloud = await startCloud({ handoff: { record: agedOut } });
  }, 120_000);
  afterAll(async () => {
    await cloud?.stop();
  });

  it('is retried once (a second hand-off), then the item is SE — recorded, counted, never lost', async () => {
    const runId = await runOn(cloud, { ...SPEC, limit: 2 });
    const run = (await cloud.ledger.getRun(runId)) as RunSummary;
    expect(run).toMatchObject({ status: 'completed', items: 2, recorded: 2, verdicts: { SE: 2 } });
    expect(await cloud.store.list(keys.itemsPrefix(runId))).toHaveLength(2);
    expect(cloud.handoff?.runner.invocationTypes).toEqual(['Event', 'Event', 'Event', 'Event']); // two per item: the first and its retry
  }, 300_000);
});

describe('several samples of one task per runner invocation (the judge takes a batch of messages)', () => {
  let sync: Cloud;
  let batched: Cloud;
  beforeAll(async () => {
    [sync, batched] = await Promise.all([startCloud(), startCloud({ handoff: {} })]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([sync?.stop(), batched?.stop()]);
  });

  it('records the same items, verdicts and ledger counts as the synchronous judge, each invocation carrying samples of one task', async () => {
    const syncRun = await runOn(sync, SAMPLES);
    const batchedRun = await runOn(batched, SAMPLES, false, JUDGE_BATCH);
    const syncLedger = (await sync.ledger.getRun(syncRun)) as RunSummary;
    expect(syncLedger).toMatchObject({ status: 'completed', items: 6, recorded: 6 });
    expect(await batched.ledger.getRun(batchedRun)).toMatchObject({
      status: 'completed',
      items: syncLedger.items,
      recorded: syncLedger.recorded,
      verdicts: syncLedger.verdicts,
    });
    const [b, s] = [await records(batched, batchedRun), await records(sync, syncRun)];
    expect(b).toHaveLength(6);
    expect(JSON.parse(JSON.stringify(b).split('"isolation":"lambda-runner+').join('"isolation":"'))).toEqual(s);
    const sent = events(batched);
    // Fewer invocations than items: at least one carried several programs, and none mixed two tasks.
    expect(sent.length).toBeLessThan(6);
    expect(Math.max(...sent.map((e) => e.programs))).toBeGreaterThanOrEqual(2);
    for (const e of sent) expect(e.tasks.size).toBe(1);
    expect(sent.reduce((sum, e) => sum + e.programs, 0)).toBe(6);
    expect(new Set(batched.handoff?.runner.invocationTypes)).toEqual(new Set(['Event']));
  }, 300_000);

  it('records each item once when every batch of messages and every batch record is delivered twice, at once', async () => {
    const runId = await runOn(batched, SAMPLES, true, JUDGE_BATCH);
    expect(await batched.ledger.getRun(runId)).toMatchObject({ status: 'completed', items: 6, recorded: 6 });
    expect(await batched.ledger.recordedItems(runId)).toHaveProperty('size', 6);
    expect(await batched.store.list(keys.itemsPrefix(runId))).toHaveLength(6);
    const verdicts = (await batched.ledger.getRun(runId))?.verdicts ?? {};
    expect(Object.values(verdicts).reduce((a, b) => a + (b ?? 0), 0)).toBe(6);
  }, 300_000);
});

describe('a batch invocation Lambda gives up on (EventAgeExceeded: no response for any of its programs)', () => {
  let cloud: Cloud;
  beforeAll(async () => {
    cloud = await startCloud({ handoff: { record: agedOut } });
  }, 120_000);
  afterAll(async () => {
    await cloud?.stop();
  });

  it('retries every sample in it once (together again), then each is SE — recorded, counted, none lost', async () => {
    const runId = await runOn(cloud, { ...SPEC, limit: 1, n: 3 }, false, JUDGE_BATCH);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', items: 3, recorded: 3, verdicts: { SE: 3 } });
    expect(await cloud.store.list(keys.itemsPrefix(runId))).toHaveLength(3);
    // The first invocation and its retry, each carrying the task's three samples.
    expect(events(cloud).map((e) => e.programs)).toEqual([3, 3]);
  }, 300_000);
});

describe('one program of a batch the runner could not serve', () => {
  let cloud: Cloud;
  beforeAll(async () => {
    cloud = await startCloud({
      handoff: {
        // The runner answers the first program of a batch with an error (as serve.ts does for a program it could not serve), the others as it ran them.
        record: (record) => {
          const response = record.responsePayload as { programs?: unknown[] } | undefined;
          if (!response?.programs) return record;
          return {
            ...record,
            responsePayload: { ...response, programs: [{ errorType: 'HarnessError', errorMessage: 'compile server died' }, ...response.programs.slice(1)] },
          };
        },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await cloud?.stop();
  });

  it('retries that sample alone; the others keep their verdicts from the batch', async () => {
    const runId = await runOn(cloud, { ...SPEC, limit: 1, n: 3 }, false, JUDGE_BATCH);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', items: 3, recorded: 3, verdicts: { OK: 3 } });
    expect(events(cloud).map((e) => e.programs)).toEqual([3, 1]);
  }, 300_000);
});

describe('a judge batch scores its items one at a time (memory for one checker program beside Node)', () => {
  let cloud: Cloud;
  let inFlight = 0;
  let most = 0;
  const overlapped: number[] = [];
  beforeAll(async () => {
    cloud = await startCloud({
      handoff: {},
      // Counts the items being scored at once (a checker program runs inside an item's scoring).
      wrapExecutor: (executor) => ({
        ...executor,
        execute: async (job) => {
          most = Math.max(most, ++inFlight);
          try {
            await new Promise((resolve) => setTimeout(resolve, 20));
            return await executor.execute(job);
          } finally {
            inFlight -= 1;
          }
        },
      }),
      // The after-item check takes any live sandbox process for a leftover: it must never run beside another item's scoring.
      afterItem: () => {
        overlapped.push(inFlight);
        return Promise.resolve();
      },
    });
  }, 120_000);
  afterAll(async () => {
    await cloud?.stop();
  });

  it('never scores two items (and so never runs two checkers) at once, and checks after each alone', async () => {
    const runId = await runOn(cloud, SAMPLES, false, JUDGE_BATCH);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', items: 6, recorded: 6 });
    expect(Math.max(...events(cloud).map((e) => e.programs))).toBeGreaterThanOrEqual(2); // the batch did hand off together
    expect(most).toBe(1);
    expect(overlapped.length).toBeGreaterThanOrEqual(6);
    expect(new Set(overlapped)).toEqual(new Set([0]));
  }, 300_000);
});

describe('a runner record the judge keeps failing on (dead-lettered on the answers queue)', () => {
  let cloud: Cloud;
  let failing = true;
  beforeAll(async () => {
    cloud = await startCloud({ handoff: {} });
    const judge = cloud.handlers.python;
    // The judge fails every invocation record while `failing` (as a judge that crashes on them), so each record dead-letters.
    cloud.handlers.python = async (event: SQSEvent, context): Promise<SQSBatchResponse> => {
      const records = event.Records.filter((r) => failing && isDestinationRecord(JSON.parse(r.body)));
      const rest = event.Records.filter((r) => !records.includes(r));
      const out = rest.length > 0 ? await judge({ Records: rest }, context) : { batchItemFailures: [] };
      return { batchItemFailures: [...out.batchItemFailures, ...records.map((r) => ({ itemIdentifier: r.messageId }))] };
    };
  }, 120_000);
  afterAll(async () => {
    await cloud?.stop();
  });

  it('is watched like a work queue: the stalled run is closed with its items dead-lettered (not lost), and redrive brings them back', async () => {
    const runId = await apiClient(() => cloud).startRun({ ...SPEC, limit: 2 });
    await drive(cloud);
    expect(await queueDepth(cloud.sqs, cloud.handoff?.answers.dlqUrl ?? '')).toBe(2);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'running', items: 2, recorded: 0 });

    // Without the answers DLQ among the watchdog's, both items would be `lost` (in no queue and no DLQ it reads).
    const report = await watchdogAt(cloud, 31);
    expect(report.actions).toEqual([{ runId, action: 'aggregate', recorded: 0, items: 2, deadLettered: 2 }]);
    await drive(cloud);
    const { call } = apiClient(() => cloud);
    const metrics = await call(apiEvent('GET', `/runs/${runId}/metrics`));
    expect(metrics.body).toMatchObject({ status: 'completed_with_missing', lost: [] });
    expect((metrics.body as { dead_lettered: string[] }).dead_lettered).toHaveLength(2);

    failing = false;
    const redrive = await call(apiEvent('POST', `/runs/${runId}/redrive`));
    expect(redrive).toMatchObject({ status: 200, body: { run_id: runId, moved: 2, queues: { 'answers-python': 2 } } });
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', items: 2, recorded: 2 });
  }, 300_000);
});
