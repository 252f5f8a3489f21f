// A 50,000-item run to `completed` on moto_server, with the aggregate function's time and
// memory measured. moto answers tens of DynamoDB transactions a second on this machine, so
// 50,000 items cannot each take the whole route here; the run is driven like this:
// - plan: the real plan handler from SQS plans all 50,024 items (abricot × n = 962) in chunks
//   of 1000, writing 51 part manifests; its generate messages are kept in memory;
// - every record is made by the real generate/score code (generateItem, scoreItem,
//   buildRecord with the reference model);
// - parts 0–48 are stored as the part compaction stores them (encodeRecords at their key);
// - part 49's 1000 items are written by the engine's recordItem (item documents in S3, counted
//   in a throwaway local ledger) with no part file, so the final aggregate compacts it itself;
// - the 50,000 counts land in the DynamoDB run row with one update; the last part's 24 items go
//   through SQS and the real generate handler, which records them, counts the last part, and
//   hands the run to the real aggregate function (part message, then the whole run).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsWorkQueue } from '#aws/index.ts';
import type { RunSummaryDocument } from '#core/report/aggregate.ts';
import { buildRecord, generateItem, recordItem, scoreItem, type GeneratedItem } from '#core/run/engine.ts';
import { keys } from '#core/run/keys.ts';
import { encodeRecords } from '#core/run/parquet.ts';
import type { RunRecord } from '#core/types.ts';
import { FileRunLedger } from '#local/index.ts';
import { RunContextCache } from '#app/cloud/context.ts';
import { dynamoSetRunItems } from '#aws/dynamo-run-items.ts';
import type { CloudWorkItem, PlanMessage } from '#app/cloud/messages.ts';
import { createCloudProvider } from '#app/cloud/provider.ts';
import { packageVersions } from '../../../functions/shared/runtime.ts';
import { STAGE_TIMEOUTS } from '../../../infra/queues.ts';
import { makeHandler as makePlan } from '../../../functions/plan/handler.ts';
import { ROOT } from '../../support/cli.ts';
import { apiEvent, postJson } from './api-events.ts';
import { drive, lambdaContext, startCloud, TABLE, type Cloud } from './cloud-harness.ts';

/** The aggregate function's memory (infra/pipeline.ts) and timeout (infra/queues.ts). */
const AGGREGATE_MEMORY_MB = 2048;
const AGGREGATE_TIMEOUT_MS = STAGE_TIMEOUTS.aggregate.toMilliseconds();

let cloud: Cloud;
let scratch: string;

beforeAll(async () => {
  // The deployed bootstrap: 1000 resamples.
  cloud = await startCloud({ chunkSize: 1000, iterations: 1000 });
  scratch = await mkdtemp(join(tmpdir(), 'polyeval-scale-'));
});

afterAll(async () => {
  await cloud?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

interface Measured {
  invocations: { ms: number; kind: string }[];
  peakHeapMb: number;
  peakRssMb: number;
}

/** Wraps the aggregate handler: wall time per invocation, peak heap and RSS above the process's level before. */
function measureAggregate(): Measured {
  const measured: Measured = { invocations: [], peakHeapMb: 0, peakRssMb: 0 };
  const inner = cloud.handlers.aggregate;
  cloud.handlers.aggregate = async (event: SQSEvent, context) => {
    global.gc?.();
    const base = process.memoryUsage();
    const sample = (): void => {
      const now = process.memoryUsage();
      measured.peakHeapMb = Math.max(measured.peakHeapMb, (now.heapUsed - base.heapUsed) / 2 ** 20);
      measured.peakRssMb = Math.max(measured.peakRssMb, (now.rss - base.rss) / 2 ** 20);
    };
    const timer = setInterval(sample, 20);
    const started = performance.now();
    try {
      return await inner(event, context);
    } finally {
      clearInterval(timer);
      sample();
      measured.invocations.push({ ms: performance.now() - started, kind: event.Records[0]?.body ?? '' });
    }
  };
  return measured;
}

describe('a 50,000-item run', () => {
  let runId: string;
  let measured: Measured;
  const items: CloudWorkItem[] = [];

  beforeAll(async () => {
    const response = await cloud.api(postJson('/runs', { benchmark: 'sample/abricot', model: 'reference', n: 962 }), lambdaContext('api'));
    runId = String((JSON.parse(response.body ?? '{}') as { run_id: string }).run_id);
    const env = { ...process.env, AWS_ENDPOINT_URL_S3: cloud.moto.endpoint };
    cloud.handlers.plan = makePlan({
      store: cloud.store,
      ledger: cloud.ledger,
      setItems: dynamoSetRunItems(cloud.dynamo, TABLE),
      planQueue: new SqsWorkQueue<PlanMessage>({ client: cloud.sqs, queueUrl: cloud.queues.plan.url }),
      generateQueue: { send: (messages) => Promise.resolve(void items.push(...messages.map((m) => m.body))) },
      load: { packageRoot: ROOT, cacheDir: `${ROOT}/.polyeval/cache`, env },
      createProvider: (spec) => createCloudProvider(spec, {}, env),
      code: { version: 'test', revision: null, dirty: null },
      packages: packageVersions(ROOT),
      chunkSize: 1000,
    });
    await drive(cloud);
    expect(items).toHaveLength(50_024);

    const contexts = new RunContextCache({
      store: cloud.store,
      ledger: cloud.ledger,
      clock: () => new Date(),
      provider: (m) => createCloudProvider(m.model.spec, {}, env),
    });
    const ctx = await contexts.get(runId);
    const byPart = new Map<number, { item: CloudWorkItem; generated: GeneratedItem; record: RunRecord; outcome: Awaited<ReturnType<typeof scoreItem>> }[]>();
    for (const item of items) {
      const generated = await generateItem(ctx, item);
      const outcome = await scoreItem(ctx, generated);
      const entry = { item, generated, outcome, record: buildRecord(ctx, generated, outcome) };
      const index = item.part?.index ?? -1;
      byPart.set(index, [...(byPart.get(index) ?? []), entry]);
    }
    for (let index = 0; index <= 48; index++) {
      const records = (byPart.get(index) ?? []).map((e) => e.record);
      await cloud.store.put(keys.recordsPart('abricot', runId, index), encodeRecords(records), 'application/vnd.apache.parquet');
    }
    const journal = new FileRunLedger(scratch);
    await journal.createRun({ runId, benchmark: 'abricot', model: 'reference', status: 'running', items: 50_024, createdAt: new Date().toISOString() });
    for (const entry of byPart.get(49) ?? []) await recordItem({ ...ctx, ledger: journal }, entry.generated, entry.outcome);
    const doc = DynamoDBDocumentClient.from(cloud.dynamo);
    await doc.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: { pk: `RUN#${runId}`, sk: 'RUN' },
        UpdateExpression: 'ADD recorded :n, verdict_OK :n',
        ExpressionAttributeValues: { ':n': 50_000 },
      }),
    );

    measured = measureAggregate();
    const last = (byPart.get(50) ?? []).map((e) => e.item);
    expect(last).toHaveLength(24);
    await new SqsWorkQueue<CloudWorkItem>({ client: cloud.sqs, queueUrl: cloud.queues.generate.url }).send(
      last.map((item) => ({ id: `${item.taskId}/${item.sample}`, body: item })),
    );
    await drive(cloud);
  }, 1_200_000);

  it('completes with every item in the summary and the metrics', async () => {
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', items: 50_024, recorded: 50_024 });
    const summary = JSON.parse((await cloud.store.getText(keys.summary(runId))) ?? '{}') as RunSummaryDocument;
    expect(summary).toMatchObject({ status: 'completed', items: 50_024, verdicts: { OK: 50_024 } });
    expect(summary.missing).toBeUndefined();
    expect(summary.metrics['pearson/subtask=abstractness']?.value).toBeCloseTo(1, 10);
    const metrics = await cloud.api(apiEvent('GET', `/runs/${runId}/metrics`), lambdaContext('api'));
    expect(metrics.statusCode).toBe(200);
  });

  it('stores the records as one Parquet part per plan chunk', async () => {
    const parts = await cloud.store.list(`results/records/benchmark=abricot/run_id=${runId}/`);
    expect(parts).toHaveLength(51);
  });

  it('aggregates within the aggregate function’s memory and timeout', () => {
    const summary = {
      invocations: measured.invocations.map((i) => ({ kind: i.kind, ms: Math.round(i.ms) })),
      peakHeapMb: Math.round(measured.peakHeapMb),
      peakRssMb: Math.round(measured.peakRssMb),
    };
    console.log(`aggregate on 50,024 items: ${JSON.stringify(summary)}`);
    expect(measured.invocations.length).toBeGreaterThanOrEqual(2);
    for (const invocation of measured.invocations) expect(invocation.ms).toBeLessThan(AGGREGATE_TIMEOUT_MS);
    expect(measured.peakRssMb).toBeLessThan(AGGREGATE_MEMORY_MB);
  });
});
