/**
 * The Bedrock batch inference client against the fake Bedrock control plane, with the job's
 * files in moto's S3 on loopback: the real `@aws-sdk/client-bedrock` creates, polls, finds
 * and stops jobs; records go in as Converse bodies and come back by recordId; errored
 * records, an expired job and a stopped job become failures with Bedrock's reason; and a
 * whole ABRICOT run generated through it has the verdicts of the same answers on demand.
 */
import { BedrockClient } from '@aws-sdk/client-bedrock';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '#aws/index.ts';
import type { BatchClient, BatchRecord } from '#core/models/batch.ts';
import { BedrockProvider, shippedCapabilityTable } from '#providers/index.ts';
import { resolveOptions } from '#providers/options.ts';
import { BedrockBatchClient, type BedrockBatchOptions } from '#providers/batch/bedrock-batch.ts';
import { startBedrockBatchServer, startBedrockServer, type BedrockBatchServer, type BedrockBatchServerOptions } from '../../fakes/wire-servers/index.ts';
import { runThrough } from '../../support/batch-pipeline.ts';
import { awsClientConfig, createBucket, startMoto, useFakeAwsCredentials, type Moto } from '../../support/moto.ts';

const BUCKET = 'polyeval-batch-tests';
const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
let moto: Moto;
let s3: S3Client;
const closers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  useFakeAwsCredentials();
  moto = await startMoto();
  s3 = new S3Client(awsClientConfig(moto.endpoint));
  await createBucket(s3, BUCKET);
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  s3?.destroy();
  await moto?.stop();
});

let storeCount = 0;
async function bedrock(
  fake: Omit<BedrockBatchServerOptions, 's3'> = {},
  client: Partial<BedrockBatchOptions> = {},
): Promise<{ server: BedrockBatchServer; client: BedrockBatchClient; store: S3BlobStore }> {
  // An account whose minimum-records quota was lowered to 1 (AWS's default, 100, is tested below).
  const server = await startBedrockBatchServer({ s3, minRecords: 1, ...fake });
  closers.push(server);
  const store = new S3BlobStore({ client: s3, bucket: BUCKET, prefix: `t${++storeCount}` });
  const sdk = new BedrockClient({ ...awsClientConfig(server.url), maxAttempts: 1 });
  closers.push({ close: async () => sdk.destroy() });
  return {
    server,
    store,
    client: new BedrockBatchClient(MODEL, {
      store,
      prefix: 'batch-inference/',
      roleArn: 'arn:aws:iam::123456789012:role/polyeval-batch',
      bedrock: sdk,
      capabilities: shippedCapabilityTable(),
      scheme: 'bedrock',
      limits: { minRecords: 1 },
      ...client,
    }),
  };
}

function record(id: string): BatchRecord {
  return {
    recordId: id,
    request: {
      taskId: `t-${id}`,
      sample: 0,
      prompt: { style: 'chat', system: 'Rispondi con una cifra.', messages: [{ role: 'user', content: `Domanda ${id}` }] },
      params: { temperature: 0.2, topP: 0.9, maxTokens: 4, stop: [' ', '\n\n'] },
    },
  };
}

async function untilEnded(client: BatchClient, id: string): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < 50; i++) {
    const s = await client.status(id);
    seen.push(`${s.providerStatus}:${s.counts.succeeded}/${s.counts.total}${s.ending === 'failed' ? ` (${s.reason})` : ''}`);
    if (s.phase === 'ended') return seen;
  }
  throw new Error(`job ${id} did not end: ${seen.join(', ')}`);
}

describe('Bedrock batch inference client', () => {
  it('writes Converse records to S3, follows the job to Completed and reads each result by recordId', async () => {
    const { server, client, store } = await bedrock({ answer: (prompt) => (prompt.includes('r2') ? '5 e basta' : '1') });
    const arn = await client.submit(
      ['r0', 'r1', 'r2'].map((r) => client.encode(record(r))),
      'run-1/batch-0',
    );
    const [job] = server.jobs();
    expect(job?.arn).toBe(arn);
    const input = (await store.getText(`batch-inference/${job?.name}/input.jsonl`))?.trim().split('\n') ?? [];
    // Whitespace-only stop sequences are not sent to Claude; they cut the answer afterwards.
    expect(JSON.parse(input[0] ?? '{}')).toEqual({
      recordId: 'r0',
      modelInput: {
        messages: [{ role: 'user', content: [{ text: 'Domanda r0' }] }],
        system: [{ text: 'Rispondi con una cifra.' }],
        inferenceConfig: { maxTokens: 4, temperature: 0.2, topP: 0.9 },
      },
    });
    expect(await untilEnded(client, arn)).toEqual(['Validating:0/0', 'Scheduled:0/3', 'InProgress:0/3', 'InProgress:1/3', 'Completed:3/3']);
    const results = new Map((await client.results(arn)).map((r) => [r.recordId, r]));
    const r2 = results.get('r2');
    expect(r2?.ok && client.finish(r2.generation, record('r2').request.params).text).toBe('5');
    expect([...results.values()].map((r) => r.ok && r.generation.usage.completionTokens)).toEqual([1, 1, 4]);
    expect(await store.getText(`batch-inference/${job?.name}/output/${arn.split('/').at(-1)}/manifest.json.out`)).toContain('"successRecordCount":3');
  });

  it('maps errored records, an expired job and a stopped job to failures with Bedrock’s reason', async () => {
    const partial = await bedrock({ reject: (id) => (id === 'r1' ? { errorCode: 400, errorMessage: 'Malformed input request' } : undefined) });
    const a = await partial.client.submit(
      ['r0', 'r1'].map((r) => partial.client.encode(record(r))),
      'run-2/batch-0',
    );
    await untilEnded(partial.client, a);
    expect(await partial.client.status(a)).toMatchObject({ providerStatus: 'PartiallyCompleted', ending: 'completed', counts: { succeeded: 1, failed: 1 } });
    expect((await partial.client.results(a)).find((r) => r.recordId === 'r1')).toEqual({ recordId: 'r1', ok: false, error: '400: Malformed input request' });

    const expiring = await bedrock({ expireAfter: 2 });
    const b = await expiring.client.submit(
      ['r0', 'r1', 'r2', 'r3'].map((r) => expiring.client.encode(record(r))),
      'run-3/batch-0',
    );
    await untilEnded(expiring.client, b);
    expect(await expiring.client.status(b)).toMatchObject({ ending: 'expired', reason: 'Job timed out after 168 hours' });
    expect((await expiring.client.results(b)).map((r) => r.recordId)).toEqual(['r0', 'r1']);

    const slow = await bedrock({ progressPolls: 1_000 });
    const c = await slow.client.submit(
      ['r0', 'r1'].map((r) => slow.client.encode(record(r))),
      'run-4/batch-0',
    );
    await slow.client.status(c);
    await slow.client.cancel(c);
    expect(await slow.client.status(c)).toMatchObject({ phase: 'cancelling', providerStatus: 'Stopping' });
    expect(await slow.client.status(c)).toMatchObject({ phase: 'ended', ending: 'cancelled', providerStatus: 'Stopped' });
    expect(await slow.client.results(c)).toEqual([]);
  });

  it('finds the job created for a key again, and a job below the account’s minimum of records fails validation', async () => {
    const { client, server } = await bedrock({ minRecords: 100 }, { limits: {} });
    expect(client.limits).toEqual({ minRecords: 100, maxRecords: 50_000, maxBytes: 1024 ** 3, maxJobsInFlight: 10 });
    const arn = await client.submit([client.encode(record('r0'))], 'run-5/batch-0');
    expect(await client.find('run-5/batch-0')).toBe(arn);
    expect(await client.find('run-5/batch-1')).toBeUndefined();
    // The same key again (a resumed process that lost the answer): the same job, not a second one.
    expect(await client.submit([client.encode(record('r0'))], 'run-5/batch-0')).toBe(arn);
    expect(server.jobs()).toHaveLength(1);
    await untilEnded(client, arn);
    expect(await client.status(arn)).toMatchObject({
      ending: 'failed',
      reason: 'The number of records in the input (1) is less than the minimum of 100 records per batch inference job',
    });
  });

  it('generates an ABRICOT run with the verdicts the same answers get from Converse on demand', async () => {
    const answer = (prompt: string): string => String(1 + (prompt.length % 5));
    const { client } = await bedrock({ answer });
    const runtime = await startBedrockServer({ answer });
    closers.push(runtime);
    const provider = new BedrockProvider(`bedrock:${MODEL}`, MODEL, resolveOptions({ endpointUrl: runtime.url, region: 'us-east-1', retryBaseMs: 1 }));
    closers.push({ close: () => provider.close() });
    const batched = await runThrough(client);
    const onDemand = await runThrough(provider);
    expect(Object.keys(batched)).toHaveLength(16);
    expect(batched).toEqual(onDemand);
    expect(new Set(Object.values(batched)).size).toBeGreaterThan(1);
  });
});
