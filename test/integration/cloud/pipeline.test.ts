// The deployed pipeline end to end on moto_server: real handlers, real AWS adapters, a driver
// delivering genuine SQS events as Lambda's event source mapping does.
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaderboardSql, sliceMetricsSql } from '#aws/index.ts';
import type { RunSummary } from '#core/ports.ts';
import type { RunSummaryDocument } from '#core/report/aggregate.ts';
import { SCHEMA_VERSION } from '#core/run/documents.ts';
import { keys } from '#core/run/keys.ts';
import { apiEvent, postJson } from './api-events.ts';
import { SqsWorkQueue } from '#aws/index.ts';
import { RunContextCache } from '#app/cloud/context.ts';
import { consume } from '../../../functions/execute/consumer.ts';
import { apiClient, drive, queueDepth, sandboxExecutor, startCloud, type Cloud } from './cloud-harness.ts';
import { openResultsCopy } from './results-copy.ts';

let cloud: Cloud;

beforeAll(async () => {
  // Chunks of 20 items: abricot's 52 items take three plan invocations.
  cloud = await startCloud({ chunkSize: 20 });
});

afterAll(async () => {
  await cloud?.stop();
});

const { call, startRun } = apiClient(() => cloud);

async function itemKeys(runId: string): Promise<string[]> {
  return cloud.store.list(keys.itemsPrefix(runId));
}

async function receiveAll(queueUrl: string): Promise<string[]> {
  const bodies: string[] = [];
  for (;;) {
    const out = await cloud.sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 30 }));
    if ((out.Messages ?? []).length === 0) return bodies;
    bodies.push(...(out.Messages ?? []).map((m) => m.Body ?? ''));
  }
}

function verdictTotal(run: RunSummary): number {
  return Object.values(run.verdicts).reduce((sum, n) => sum + (n ?? 0), 0);
}

describe('a run through the deployed pipeline', () => {
  let abricotRun: string;
  let rocodeRun: string;

  beforeAll(async () => {
    abricotRun = await startRun({ benchmark: 'sample/abricot', model: 'reference' });
    rocodeRun = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 3 });
    const before = await call(apiEvent('GET', `/runs/${abricotRun}`));
    expect(before.status).toBe(200);
    expect((before.body.run as RunSummary).status).toBe('planned');
    const stats = await drive(cloud);
    expect(stats.invocations.plan).toBeGreaterThanOrEqual(4);
  }, 300_000);

  it('completes the abricot run with every item recorded once and Pearson 1.0', async () => {
    const run = await cloud.ledger.getRun(abricotRun);
    expect(run?.status).toBe('completed');
    expect(run?.items).toBe(52);
    expect(run?.recorded).toBe(52);
    expect(verdictTotal(run as RunSummary)).toBe(52);
    expect(await itemKeys(abricotRun)).toHaveLength(52);

    const metrics = await call(apiEvent('GET', `/runs/${abricotRun}/metrics`));
    expect(metrics.status).toBe(200);
    const summary = metrics.body as unknown as RunSummaryDocument;
    expect(summary.metrics['pearson/subtask=abstractness']?.value).toBeCloseTo(1, 10);
    expect(summary.metrics['pearson/subtask=inclusiveness']?.value).toBeCloseTo(1, 10);
  });

  it('scores the rocode run in the python executor and records its verdicts', async () => {
    const run = await cloud.ledger.getRun(rocodeRun);
    expect(run).toMatchObject({ status: 'completed', items: 3, recorded: 3, verdicts: { OK: 3 } });
    expect(await itemKeys(rocodeRun)).toHaveLength(3);
    const summary = (await call(apiEvent('GET', `/runs/${rocodeRun}/metrics`))).body as unknown as RunSummaryDocument;
    expect(summary.metrics['accuracy']?.value).toBe(1);
  });

  it("adds RoCode's code-switching metrics in the aggregate, over the run's own tasks, as a local run does", async () => {
    const summary = (await call(apiEvent('GET', `/runs/${rocodeRun}/metrics`))).body as unknown as RunSummaryDocument;
    const generated = summary.metrics['code_switching/language=python'];
    const reference = summary.metrics['code_switching_reference/language=python'];
    // The reference model answers with the reference solutions: both shares are over the same 3 programs.
    expect(generated?.n).toBe(3);
    expect(reference?.n).toBe(3);
    expect(generated?.value).toBe(reference?.value);
  });

  it('writes the records and metrics tables as Parquet under results/', async () => {
    for (const [benchmark, runId] of [
      ['abricot', abricotRun],
      ['rocode', rocodeRun],
    ] as const) {
      expect(await cloud.store.exists(keys.recordsPart(benchmark, runId))).toBe(true);
      expect(await cloud.store.exists(keys.metrics(benchmark, runId))).toBe(true);
      expect(await cloud.store.exists(keys.report(runId))).toBe(true);
    }
  });

  it('shows the final status and the manifest through GET /runs/{id} and lists the runs', async () => {
    const view = await call(apiEvent('GET', `/runs/${abricotRun}`));
    expect(view.status).toBe(200);
    expect(view.body.run).toMatchObject({ runId: abricotRun, status: 'completed', recorded: 52 });
    expect(view.body.manifest).toMatchObject({ run_id: abricotRun, items: 52, benchmark: { id: 'abricot', spec: 'sample/abricot' } });
    // Stored as the local path stores it: versioned, so a later polyeval knows what it reads.
    const stored = JSON.parse((await cloud.store.getText(keys.manifest(abricotRun))) ?? '{}') as { schema_version?: number };
    expect(stored.schema_version).toBe(SCHEMA_VERSION);
    const list = await call(apiEvent('GET', '/runs'));
    expect((list.body.runs as RunSummary[]).map((r) => r.runId)).toEqual(expect.arrayContaining([abricotRun, rocodeRun]));
  });

  it('announces each completed run once with RunCompleted on the event bus', async () => {
    const events = (await receiveAll(cloud.eventsQueueUrl)).map((body) => JSON.parse(body) as { 'detail-type': string; detail: { runId: string } });
    const completed = events.filter((e) => e['detail-type'] === 'RunCompleted').map((e) => e.detail.runId);
    expect(completed.sort()).toEqual([abricotRun, rocodeRun].sort());
  });

  it('runs the shipped Athena SQL unchanged on DuckDB over the Parquet files the cloud wrote', async () => {
    const { query, close } = await openResultsCopy(cloud.store);
    try {
      const board = await query.sql(leaderboardSql('rocode'));
      expect(board).toEqual([expect.objectContaining({ model: 'reference', run_id: rocodeRun, value: 1 })]);
      const slices = await query.sql(sliceMetricsSql(abricotRun));
      expect(slices).toEqual(
        expect.arrayContaining([expect.objectContaining({ metric: 'pearson', slice: 'subtask=abstractness', value: expect.closeTo(1, 10) })]),
      );
    } finally {
      await close();
    }
  });
});

describe('the Fargate lane', () => {
  it('sends work too long for Lambda to the Fargate queue, where the consumer scores it', async () => {
    // × 100 time limits: the worst case exceeds a Lambda executor's budget.
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 1, timeScale: 100 });
    await drive(cloud);
    expect(await queueDepth(cloud.sqs, cloud.fargateQueue.url)).toBe(1);
    expect((await cloud.ledger.getRun(runId))?.recorded).toBe(0);

    const queue = new SqsWorkQueue<unknown>({ client: cloud.sqs, queueUrl: cloud.fargateQueue.url, waitTimeSec: 1 });
    queue.close();
    await consume({
      queue,
      concurrency: 1,
      deps: {
        ledger: cloud.ledger,
        parts: cloud.parts,
        aggregateQueue: new SqsWorkQueue({ client: cloud.sqs, queueUrl: cloud.queues.aggregate.url }),
        contexts: new RunContextCache({ store: cloud.store, ledger: cloud.ledger, clock: () => new Date(), executor: sandboxExecutor(cloud.store) }),
      },
    });
    await drive(cloud);

    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', items: 1, recorded: 1, verdicts: { OK: 1 } });
  }, 120_000);
});

describe('at-least-once delivery', () => {
  it('records each result exactly once when every message is delivered twice', async () => {
    const abricot = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 6 });
    const rocode = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 2 });

    await drive(cloud, { duplicate: true });

    for (const [runId, items] of [
      [abricot, 6],
      [rocode, 2],
    ] as const) {
      const run = (await cloud.ledger.getRun(runId)) as RunSummary;
      expect(run).toMatchObject({ status: 'completed', items, recorded: items });
      expect(verdictTotal(run)).toBe(items);
      expect(await cloud.ledger.recordedItems(runId)).toHaveProperty('size', items);
      expect(await itemKeys(runId)).toHaveLength(items);
      const summary = JSON.parse((await cloud.store.getText(keys.summary(runId))) ?? '{}') as RunSummaryDocument;
      expect(summary.items).toBe(items);
    }
  }, 300_000);

  it('moves a poison message to its queue’s DLQ after maxReceiveCount deliveries', async () => {
    await cloud.sqs.send(new SendMessageCommand({ QueueUrl: cloud.queues.generate.url, MessageBody: 'not json {' }));
    await cloud.sqs.send(new SendMessageCommand({ QueueUrl: cloud.queues.aggregate.url, MessageBody: JSON.stringify({ run: 'missing runId' }) }));

    const stats = await drive(cloud);

    expect(stats.failed.generate).toBe(3);
    expect(stats.failed.aggregate).toBe(3);
    expect(await receiveAll(cloud.queues.generate.dlqUrl)).toEqual(['not json {']);
    expect(await receiveAll(cloud.queues.aggregate.dlqUrl)).toEqual([JSON.stringify({ run: 'missing runId' })]);
    expect(await queueDepth(cloud.sqs, cloud.queues.generate.url)).toBe(0);
  }, 120_000);
});

describe('the HTTP API', () => {
  it('answers 400 naming the field of a bad run spec', async () => {
    const response = await call(postJson('/runs', { benchmark: 'sample/abricot', model: 'reference', n: 0 }));
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/field "n"/);
  });

  it('answers 400 for an unknown benchmark and for a body that is not JSON', async () => {
    expect((await call(postJson('/runs', { benchmark: 'nope', model: 'reference' }))).status).toBe(400);
    const notJson = await call(apiEvent('POST', '/runs', { body: '{', headers: { 'content-type': 'application/json' } }));
    expect(notJson.status).toBeGreaterThanOrEqual(400);
    expect(notJson.status).toBeLessThan(500);
  });

  it('answers 404 for an unknown run and 409 for metrics of a run not completed', async () => {
    expect((await call(apiEvent('GET', '/runs/no-such-run'))).status).toBe(404);
    expect((await call(apiEvent('GET', '/runs/no-such-run/metrics'))).status).toBe(404);
    const runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 1 });
    const early = await call(apiEvent('GET', `/runs/${runId}/metrics`));
    expect(early.status).toBe(409);
    expect(early.body.message).toMatch(/planned/);
    await drive(cloud);
  }, 120_000);

  it('fails a run whose split selects nothing, with the reason in GET /runs/{id}', async () => {
    const runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', split: 'no-such-split' });
    await drive(cloud);
    const view = await call(apiEvent('GET', `/runs/${runId}`));
    expect(view.body.run).toMatchObject({ status: 'failed', reason: expect.stringContaining('no task in split "no-such-split"') });
    expect(view.body.manifest).toBeNull();
  }, 60_000);

  it('fails a run capped by maxCostUsd on a model without a price, before any model call', async () => {
    const runId = await startRun({ benchmark: 'sample/abricot', model: 'bedrock:acme.unpriced-model-v1:0', maxCostUsd: 1 });
    await drive(cloud);
    const view = await call(apiEvent('GET', `/runs/${runId}`));
    expect(view.body.run).toMatchObject({ status: 'failed', reason: expect.stringMatching(/no price.*--prices.*--assume-price/) });
    expect(view.body.manifest).toBeNull();
  }, 60_000);

  it('answers 400 when the leaderboard names no benchmark', async () => {
    const response = await call(apiEvent('GET', '/leaderboard'));
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/benchmark/);
  });
});
