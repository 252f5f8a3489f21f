// `remote run --batch` with a bedrock: model through the deployed pipeline on moto_server: the
// real api, plan, generate, aggregate and batch-stage handlers, the real Bedrock control-plane
// SDK against the Bedrock batch fake (jobs read and write moto's S3), and the same answers
// on demand through the Converse fake for comparison.
import { BedrockClient } from '@aws-sdk/client-bedrock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SqsWorkQueue } from '#aws/index.ts';
import { createCloudBatchClient } from '#app/cloud/batch-clients.ts';
import { RunContextCache } from '#app/cloud/context.ts';
import { costOfManifest } from '#app/cloud/cost.ts';
import type { AggregateMessage, GeneratedMessage } from '#app/cloud/messages.ts';
import { createCloudProvider } from '#app/cloud/provider.ts';
import { parseBatchJob } from '#core/run/batch-jobs.ts';
import { keys } from '#core/run/keys.ts';
import { BedrockProvider } from '#providers/index.ts';
import { resolveOptions } from '#providers/options.ts';
import { makeHandler as makeBatch, type BatchHandler } from '../../../functions/batch/handler.ts';
import { startBedrockBatchServer, startBedrockServer, type BedrockBatchServer, type BedrockBatchServerOptions } from '../../fakes/wire-servers/index.ts';
import { awsClientConfig, useFakeAwsCredentials } from '../../support/moto.ts';
import { apiEvent, postJson } from './api-events.ts';
import { apiClient, drive, lambdaContext, startCloud, type Cloud } from './cloud-harness.ts';
import { reasons as reasonsOf, untilSettled as settle, verdicts as verdictsOf } from './batch-settle.ts';

const MODEL_ID = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const MODEL = `bedrock:${MODEL_ID}`;
/** The account's minimum records per job in these tests (AWS's default is 100; abricot's sample has 52 items). */
const MIN_RECORDS = 15;
const answer = (prompt: string): string => String(1 + (prompt.length % 5));

let cloud: Cloud;
let runtime: { url: string; close(): Promise<void> };
const closers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  useFakeAwsCredentials();
  runtime = await startBedrockServer({ answer });
  // Chunks of 20: the 52 items are one job of 20 and one of 32 (the last 12 are below the minimum, so they join it).
  cloud = await startCloud({
    chunkSize: 20,
    batchMinRecords: () => MIN_RECORDS,
    provider: (m) =>
      Promise.resolve(new BedrockProvider(m.model.spec, MODEL_ID, resolveOptions({ endpointUrl: runtime.url, region: 'us-east-1', retryBaseMs: 1 }))),
  });
}, 120_000);
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await runtime?.close();
  await cloud?.stop();
});

const { call, startRun } = apiClient(() => cloud);

/** The deployed batch stage (functions/batch) over the fake control plane: a fresh instance, as after a restart. */
async function batchStage(fake: Omit<BedrockBatchServerOptions, 's3'> = {}): Promise<{ server: BedrockBatchServer; tick: () => ReturnType<BatchHandler> }> {
  const server = await startBedrockBatchServer({ s3: cloud.s3, minRecords: MIN_RECORDS, answer, ...fake });
  closers.push(server);
  const sdk = new BedrockClient({ ...awsClientConfig(server.url), maxAttempts: 1 });
  closers.push({ close: async () => sdk.destroy() });
  return { server, tick: () => stageOver(sdk)(undefined, lambdaContext('batch')) };
}

function stageOver(sdk: BedrockClient): BatchHandler {
  const { store, ledger, parts } = cloud;
  const clock = (): Date => new Date();
  const send = <T>(url: string): SqsWorkQueue<T> => new SqsWorkQueue<T>({ client: cloud.sqs, queueUrl: url });
  return makeBatch({
    store,
    ledger,
    parts,
    clock,
    contexts: new RunContextCache({ store, ledger, clock, provider: (m) => createCloudProvider(m.model.spec), costOf: costOfManifest }),
    client: (manifest) =>
      createCloudBatchClient(manifest.model.spec, {
        store,
        bedrockRoleArn: 'arn:aws:iam::123456789012:role/polyeval-bedrock-batch',
        bedrockControl: () => Promise.resolve(sdk),
        quotas: { minRecordsPerJob: MIN_RECORDS },
      }),
    aggregateQueue: send<AggregateMessage>(cloud.queues.aggregate.url),
    executeQueues: { python: send<GeneratedMessage>(cloud.queues.python.url) },
    fargateQueues: {},
  });
}

const untilSettled = (runId: string, tick: () => Promise<unknown>): Promise<string[]> => settle(cloud, runId, tick);
const verdicts = (runId: string): Promise<Record<string, string>> => verdictsOf(cloud, runId);
const reasons = (runId: string): Promise<string[]> => reasonsOf(cloud, runId);

describe('remote run --batch with a bedrock: model', () => {
  it('gets the verdicts of the same answers on demand, at the batch price, from jobs within the quotas', async () => {
    const { server, tick } = await batchStage();
    const batchRun = await startRun({ benchmark: 'sample/abricot', model: MODEL, batch: true });
    const onDemand = await startRun({ benchmark: 'sample/abricot', model: MODEL });
    await drive(cloud);
    // plan wrote two job documents and sent nothing of the batch run to the generate queue.
    const docs = await cloud.store.list(`runs/${batchRun}/batches/`);
    expect(docs).toHaveLength(2);
    const lines = await untilSettled(batchRun, tick);
    expect(server.jobs().map((j) => j.records)).toEqual([20, 32]);
    expect(lines.some((l) => /batch job arn:aws:bedrock:.*: InProgress, \d+\/\d+ succeeded/.test(l))).toBe(true);
    // The input records in the batch prefix, as Bedrock reads them.
    const inputs = (await cloud.store.list('batch-inference/')).filter((k) => k.endsWith('/input.jsonl'));
    expect(inputs).toHaveLength(2);
    const first = JSON.parse(((await cloud.store.getText(inputs[0] as string)) ?? '').split('\n')[0] ?? '{}') as Record<string, unknown>;
    expect(Object.keys(first).sort()).toEqual(['modelInput', 'recordId']);

    const batched = await cloud.ledger.getRun(batchRun);
    const direct = await cloud.ledger.getRun(onDemand);
    expect(batched).toMatchObject({ status: 'completed', items: 52, recorded: 52 });
    expect(direct).toMatchObject({ status: 'completed', items: 52, recorded: 52 });
    expect(await verdicts(batchRun)).toEqual(await verdicts(onDemand));
    // Same tokens, half the price (claude-3-5-haiku: $0.80/$4.00 on demand, $0.40/$2.00 as a batch).
    expect(batched?.costUsd).toBeGreaterThan(0);
    expect(batched?.costUsd).toBeCloseTo((direct?.costUsd ?? 0) / 2, 10);
    const manifest = JSON.parse((await cloud.store.getText(keys.manifest(batchRun))) ?? '{}') as { generation?: string; likert_mode?: string };
    expect(manifest).toMatchObject({ generation: 'batch', likert_mode: 'digit-parse' });
  }, 300_000);

  it('records the failed records SE with Bedrock’s reason, and an expired job’s unanswered ones too', async () => {
    const { tick } = await batchStage({
      reject: (id) => (id === 'r3' ? { errorCode: 400, errorMessage: 'Malformed input request' } : undefined),
      expireAfter: 25,
    });
    const runId = await startRun({ benchmark: 'sample/abricot', model: MODEL, batch: true });
    await drive(cloud);
    await untilSettled(runId, tick);
    const run = await cloud.ledger.getRun(runId);
    expect(run).toMatchObject({ status: 'completed', items: 52, recorded: 52 });
    const why = await reasons(runId);
    // r3 of both jobs errored; the 32-record job expired after 25 records: 7 never answered.
    expect(why.filter((r) => r.includes('400: Malformed input request'))).toHaveLength(2);
    expect(why.filter((r) => r.includes('expired') && r.includes('Job timed out'))).toHaveLength(7);
    expect(run?.verdicts.SE).toBe(9);
  }, 300_000);

  it('finds its job again after a restart mid-job, and cancel stops the job', async () => {
    const first = await batchStage({ progressPolls: 1_000 });
    const runId = await startRun({ benchmark: 'sample/abricot', model: MODEL, batch: true });
    await drive(cloud);
    // Submitted → Validating → Scheduled → InProgress: one step per poll.
    for (let i = 0; i < 3; i++) await first.tick();
    expect(first.server.jobs().map((j) => j.status)).toEqual(['InProgress', 'InProgress']);
    // A stage killed between CreateModelInvocationJob and storing the job's ARN: the document has no job yet.
    const key = `runs/${runId}/batches/0000.json`;
    const doc = parseBatchJob((await cloud.store.getText(key)) ?? '', key);
    await cloud.store.put(key, JSON.stringify({ ...doc, job_id: null, state: 'submitting', status: undefined }), 'application/json');
    // A new instance of the stage (a fresh container) finds both jobs by name and submits none.
    const sdk = new BedrockClient({ ...awsClientConfig(first.server.url), maxAttempts: 1 });
    closers.push({ close: async () => sdk.destroy() });
    await stageOver(sdk)(undefined, lambdaContext('batch'));
    expect(first.server.jobs()).toHaveLength(2);
    expect(parseBatchJob((await cloud.store.getText(key)) ?? '', key).job_id).toBe(first.server.jobs()[0]?.arn);
    expect((await cloud.ledger.getRun(runId))?.reason).toMatch(/2 batch jobs open; batch job arn:aws:bedrock:.*: InProgress/);

    const cancelled = await call(apiEvent('POST', `/runs/${runId}/cancel`));
    expect(cancelled.status).toBe(200);
    await first.tick();
    await first.tick();
    expect(first.server.jobs().map((j) => j.status)).toEqual(['Stopped', 'Stopped']);
    const after = await cloud.ledger.getRun(runId);
    expect(after).toMatchObject({ status: 'cancelled', recorded: 0 });
    // Nothing is left open: later ticks leave the run alone.
    expect((await first.tick()).runs.filter((r) => r.runId === runId)).toEqual([]);
  }, 300_000);

  it('refuses a run smaller than one job may be, and a provider without a batch API, naming batch', async () => {
    const small = await startRun({ benchmark: 'sample/abricot', model: MODEL, batch: true, limit: 10 });
    await drive(cloud);
    expect(await cloud.ledger.getRun(small)).toMatchObject({ status: 'failed', reason: expect.stringContaining('batch: a batch job of') as unknown });
    const refused = await call(postJson('/runs', { benchmark: 'sample/abricot', model: 'reference', batch: true }));
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('has no batch API');
  }, 120_000);
});
