// `s3://` datasets and replay files outside what the deployment may read are refused when the
// run is started (POST /runs through the real api handler), naming `-c datasetBuckets`; the
// api's environment (READABLE_S3, set by the stack) is what says what it may read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileRunLedger, FsBlobStore } from '#local/index.ts';
import { parseReadableS3, type S3Location } from '#app/cloud/readable-s3.ts';
import { makeHandler } from '../../../functions/api/handler.ts';
import { createApiDeps } from '../../../functions/api/deps.ts';
import { postJson } from './api-events.ts';
import { lambdaContext } from './cloud-harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'polyeval-dataset-buckets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the stack deployed with `-c datasetBuckets=team-data` tells the api. */
const READABLE = 'results-bkt/datasets/,results-bkt/runs/,team-data/';

function api(readableS3: readonly S3Location[] | undefined) {
  const sent: unknown[] = [];
  const handler = makeHandler({
    store: new FsBlobStore(join(dir, 'store')),
    ledger: new FileRunLedger(join(dir, `ledger-${Math.random()}`)),
    results: { sql: () => Promise.resolve([]), close: () => Promise.resolve() },
    planQueue: { send: (messages) => Promise.resolve(void sent.push(...messages)) },
    clock: () => new Date('2026-01-01T00:00:00Z'),
    pairs: [],
    move: () => Promise.resolve({ moved: 0 }),
    signedGetUrl: (key) => Promise.resolve(`https://signed.example/${key}`),
    ...(readableS3 ? { readableS3 } : {}),
  });
  return async (body: Record<string, unknown>) => {
    const response = await handler(postJson('/runs', body), lambdaContext('api'));
    return { status: response.statusCode, message: String((JSON.parse(response.body ?? '{}') as { message?: string }).message ?? ''), sent };
  };
}

describe('s3:// datasets and replay files at plan time', () => {
  const call = api(parseReadableS3(READABLE));

  it('refuses a dataset in a bucket the deployment may not read, naming -c datasetBuckets, and plans nothing', async () => {
    const refused = await call({ benchmark: 'rocode:s3://other-bkt/rocode.jsonl', model: 'reference', language: 'python' });
    expect(refused.status).toBe(400);
    expect(refused.message).toContain('s3://other-bkt/rocode.jsonl: this deployment may not read bucket other-bkt');
    expect(refused.message).toContain('deploy with -c datasetBuckets=other-bkt');
    expect(refused.sent).toEqual([]);
  });

  it('refuses a replay file there too, naming the model field', async () => {
    const refused = await call({ benchmark: 'sample/rocode', model: 'replay:s3://other-bkt/samples.jsonl', language: 'python' });
    expect(refused.status).toBe(400);
    expect(refused.message).toContain('model');
    expect(refused.message).toContain('-c datasetBuckets=other-bkt');
  });

  it('refuses the results bucket outside datasets/ and runs/, which its functions cannot read', async () => {
    const refused = await call({ benchmark: 'rocode:s3://results-bkt/uploads/rocode.jsonl', model: 'reference', language: 'python' });
    expect(refused.status).toBe(400);
    expect(refused.message).toContain('reads only datasets/ and runs/ of bucket results-bkt');
  });

  it('starts runs on a named bucket and on the results bucket’s datasets/', async () => {
    expect((await call({ benchmark: 'rocode:s3://team-data/rocode.jsonl', model: 'reference', language: 'python' })).status).toBe(202);
    expect((await call({ benchmark: 'rocode:s3://results-bkt/datasets/rocode.jsonl', model: 'reference', language: 'python' })).status).toBe(202);
    expect((await call({ benchmark: 'sample/rocode', model: 'replay:s3://team-data/samples.jsonl', language: 'python' })).status).toBe(202);
  });

  it('reads what it may read from READABLE_S3, the variable the stack sets', () => {
    const env = {
      AWS_REGION: 'us-east-1',
      BUCKET_NAME: 'results-bkt',
      TABLE_NAME: 'ledger',
      PLAN_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/plan',
      ATHENA_WORKGROUP: 'Polyeval',
      GLUE_DATABASE: 'polyeval',
      REDRIVE_QUEUES: '[]',
      READABLE_S3: READABLE,
    };
    expect(createApiDeps(env).readableS3).toEqual([
      { bucket: 'results-bkt', prefix: 'datasets/' },
      { bucket: 'results-bkt', prefix: 'runs/' },
      { bucket: 'team-data', prefix: '' },
    ]);
  });
});
