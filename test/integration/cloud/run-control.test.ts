// Runs that do not finish by themselves, on moto_server with the real handlers: the watchdog
// closes a run whose item was dead-lettered (`completed_with_missing`, the item listed),
// redrive brings the item back and the run completes, cancel skips queued work. Also: a
// generation too large for SQS travels as an S3 pointer.
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Provider } from '#core/models/provider.ts';
import type { RunSummaryDocument } from '#core/report/aggregate.ts';
import { keys } from '#core/run/keys.ts';
import { createCloudProvider } from '#app/cloud/provider.ts';
import { apiEvent } from './api-events.ts';
import { apiClient, drainStage as drainStageOf, drive, queueDepth, startCloud, watchdogAt, type Cloud, type StageName } from './cloud-harness.ts';

let cloud: Cloud;
/** Task ids whose generate messages crash the function (as a Lambda that times out on them). */
const crashOn = new Set<string>();
/** Appended to every python answer of runs whose model spec says `reference` (large-generation test). */
let padding = '';

beforeAll(async () => {
  const env = { ...process.env };
  const provider = async (manifest: { model: { spec: string } }): Promise<Provider> => {
    const inner = await createCloudProvider(manifest.model.spec, {}, env);
    return {
      ...inner,
      generate: async (req) => {
        const out = await inner.generate(req);
        return padding && req.language === 'python' ? { ...out, text: `${out.text}\n${padding}\n` } : out;
      },
    };
  };
  // Every model call costs $0.01 (the reference model is free; a price makes the cost guard act).
  cloud = await startCloud({ provider, costOf: () => Promise.resolve(() => 0.01) });
  const generate = cloud.handlers.generate;
  cloud.handlers.generate = async (event: SQSEvent, context): Promise<SQSBatchResponse> => {
    const crashing = event.Records.filter((r) => crashOn.has((JSON.parse(r.body) as { taskId: string }).taskId));
    const rest = event.Records.filter((r) => !crashing.includes(r));
    const out = rest.length > 0 ? await generate({ Records: rest }, context) : { batchItemFailures: [] };
    return { batchItemFailures: [...out.batchItemFailures, ...crashing.map((r) => ({ itemIdentifier: r.messageId }))] };
  };
}, 60_000);

afterAll(async () => {
  await cloud?.stop();
});

const { call, startRun } = apiClient(() => cloud);

const watchdog = (minutesLater: number) => watchdogAt(cloud, minutesLater);
const drainStage = (stage: StageName) => drainStageOf(cloud, stage);

describe('a run with a dead-lettered item', () => {
  let runId: string;
  const lost = 'abstractness/it002';

  beforeAll(async () => {
    crashOn.add(lost);
    runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 4 });
    await drive(cloud);
  }, 120_000);

  it('stays running with the item in the generate DLQ until the watchdog looks', async () => {
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'running', items: 4, recorded: 3 });
    expect(await queueDepth(cloud.sqs, cloud.queues.generate.dlqUrl)).toBe(1);
    // Not stalled yet: the watchdog leaves a run that moved recently alone.
    expect((await watchdog(0)).actions).toEqual([]);
  });

  it('is closed by the watchdog as completed_with_missing, the lost item listed', async () => {
    const report = await watchdog(31);
    expect(report.actions).toEqual([{ runId, action: 'aggregate', recorded: 3, items: 4, deadLettered: 1 }]);
    expect(await queueDepth(cloud.sqs, cloud.queues.generate.dlqUrl)).toBe(1); // looked at, left in place
    await drive(cloud);
    const run = await cloud.ledger.getRun(runId);
    expect(run).toMatchObject({ status: 'completed_with_missing' });
    expect(run?.reason).toMatch(/1 of 4 items never recorded/);
    expect(run?.reason).toMatch(/1 dead-lettered \(polyeval remote redrive .*\), 0 lost/);
    const metrics = await call(apiEvent('GET', `/runs/${runId}/metrics`));
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatchObject({
      status: 'completed_with_missing',
      items: 3,
      missing: [`${runId}/${lost}/0`],
      dead_lettered: [`${runId}/${lost}/0`],
      lost: [],
    });
  }, 120_000);

  it('completes after `redrive` puts the dead-lettered item back in its queue', async () => {
    crashOn.delete(lost);
    const redrive = await call(apiEvent('POST', `/runs/${runId}/redrive`));
    expect(redrive).toMatchObject({ status: 200, body: { run_id: runId, moved: 1, queues: { generate: 1 } } });
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'running' });
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', recorded: 4 });
    const summary = JSON.parse((await cloud.store.getText(keys.summary(runId))) ?? '{}') as RunSummaryDocument;
    expect(summary).toMatchObject({ status: 'completed', items: 4 });
    expect(summary.missing).toBeUndefined();
  }, 120_000);
});

describe('a run with a lost item (in no queue and no DLQ)', () => {
  it('is closed as completed_with_missing with the item listed as lost, not dead-lettered', async () => {
    const runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 2 });
    await drainStage('plan');
    // One generate message vanishes (as a message deleted by hand or a purged queue would).
    const out = await cloud.sqs.send(new ReceiveMessageCommand({ QueueUrl: cloud.queues.generate.url, MaxNumberOfMessages: 1 }));
    const body = JSON.parse(out.Messages?.[0]?.Body ?? '{}') as { taskId: string; sample: number };
    await cloud.sqs.send(new DeleteMessageCommand({ QueueUrl: cloud.queues.generate.url, ReceiptHandle: out.Messages?.[0]?.ReceiptHandle }));
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'running', items: 2, recorded: 1 });

    expect((await watchdog(31)).actions).toEqual([{ runId, action: 'aggregate', recorded: 1, items: 2, deadLettered: 0 }]);
    await drive(cloud);
    const run = await cloud.ledger.getRun(runId);
    expect(run).toMatchObject({ status: 'completed_with_missing' });
    expect(run?.reason).toMatch(/0 dead-lettered .*, 1 lost/);
    const id = `${runId}/${body.taskId}/${body.sample}`;
    const metrics = await call(apiEvent('GET', `/runs/${runId}/metrics`));
    expect(metrics.body).toMatchObject({ status: 'completed_with_missing', missing: [id], dead_lettered: [], lost: [id] });
  }, 120_000);
});

describe('the watchdog', () => {
  it('closes nothing while work is still queued', async () => {
    const runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 2 });
    const report = await watchdog(31);
    expect(report.stalled).toContain(runId);
    expect(report.queued).toBeGreaterThan(0);
    expect(report.actions).toEqual([]);
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed' });
  }, 120_000);
});

describe('cancel', () => {
  it('sets cancelled and takes the queued work off without doing it', async () => {
    const runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 5 });
    await drainStage('plan');
    expect(await queueDepth(cloud.sqs, cloud.queues.generate.url)).toBe(5);

    const cancelled = await call(apiEvent('POST', `/runs/${runId}/cancel`));
    expect(cancelled).toMatchObject({ status: 200, body: { run: { runId, status: 'cancelled' } } });
    await drive(cloud);

    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'cancelled', recorded: 0 });
    expect(await cloud.store.list(keys.itemsPrefix(runId))).toEqual([]);
    expect(await queueDepth(cloud.sqs, cloud.queues.generate.url)).toBe(0);
    expect((await watchdog(31)).stalled).not.toContain(runId);
  }, 120_000);

  it('wins over a plan stage that is still enqueueing: plan never sets the cancelled run back to running', async () => {
    const runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 5 });
    // The cancel lands after plan read the run (planned, not cancelled) and before plan marks it running.
    const setStatus = cloud.ledger.setStatus.bind(cloud.ledger);
    let cancelled: Awaited<ReturnType<typeof call>> | undefined;
    cloud.ledger.setStatus = async (id, status, reason) => {
      if (id === runId && status === 'running' && cancelled === undefined) cancelled = await call(apiEvent('POST', `/runs/${runId}/cancel`));
      return setStatus(id, status, reason);
    };
    try {
      await drainStage('plan');
    } finally {
      cloud.ledger.setStatus = setStatus;
    }
    expect(cancelled).toMatchObject({ status: 200, body: { run: { runId, status: 'cancelled' } } });
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'cancelled' });

    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'cancelled', recorded: 0 });
    expect(await cloud.store.list(keys.itemsPrefix(runId))).toEqual([]);
    expect(await cloud.store.getText(keys.summary(runId))).toBeUndefined();
  }, 120_000);

  it('answers 409 for a run that has ended and 404 for an unknown one', async () => {
    const runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 1 });
    await drive(cloud);
    expect((await call(apiEvent('POST', `/runs/${runId}/cancel`))).status).toBe(409);
    expect((await call(apiEvent('POST', '/runs/no-such-run/cancel'))).status).toBe(404);
  }, 120_000);
});

describe('a generation too large for an SQS message', () => {
  it('travels to the executor as a pointer to S3 and is scored', async () => {
    padding = `# ${'x'.repeat(300 * 1024)}`;
    try {
      const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 1 });
      await drive(cloud);
      expect(await cloud.store.list(`runs/${runId}/messages/`)).toHaveLength(1);
      expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', recorded: 1, verdicts: { OK: 1 } });
    } finally {
      padding = '';
    }
  }, 120_000);
});

describe('the cost guard', () => {
  it('stops a run at its cap with the spend of every container in one DynamoDB counter', async () => {
    const runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 10, maxCostUsd: 0.035 });
    // Each batch is handled twice at once, as two containers would after a redelivery.
    await drive(cloud, { duplicate: true });
    const run = await cloud.ledger.getRun(runId);
    expect(run).toMatchObject({ status: 'stopped', reason: expect.stringMatching(/cost cap/) });
    expect(run?.costUsd).toBeLessThanOrEqual(0.035);
    expect(run?.recorded).toBeLessThanOrEqual(3);
  }, 120_000);
});

describe('after the lifecycle rules expired runs/', () => {
  it('still shows the run, its manifest and its metrics through the API', async () => {
    const runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 2 });
    await drive(cloud);
    const before = await call(apiEvent('GET', `/runs/${runId}/metrics`));
    // What the expire-raw-run-items rule removes: every object under runs/.
    for (const key of await cloud.store.list(`runs/${runId}/`)) await cloud.store.delete(key);
    expect(await cloud.store.list(`runs/${runId}/`)).toEqual([]);

    const view = await call(apiEvent('GET', `/runs/${runId}`));
    expect(view.body).toMatchObject({ run: { runId, status: 'completed' }, manifest: { run_id: runId, items: 2 } });
    const metrics = await call(apiEvent('GET', `/runs/${runId}/metrics`));
    expect(metrics).toEqual(before);
  }, 120_000);
});
