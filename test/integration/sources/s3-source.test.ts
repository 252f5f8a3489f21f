import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRows, type SourceOptions, type SourceRow } from '../../../layers/sources/index.ts';
import { awsClientConfig, startMoto, type Moto } from '../../support/moto.ts';

const BUCKET = 'polyeval-datasets';
const tasks = gzipSync(Buffer.from('{"task_id":"suma","difficulty":"easy"}\n\n{"task_id":"produs","difficulty":"hard"}\n'));

let moto: Moto;
let s3: S3Client;
let cacheDir: string;

beforeAll(async () => {
  moto = await startMoto();
  s3 = new S3Client(awsClientConfig(moto.endpoint));
  cacheDir = await mkdtemp(join(tmpdir(), 'polyeval-s3-'));
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  const put = (Key: string, Body: Uint8Array | string): Promise<unknown> => s3.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body }));
  await put('datasets/rocode/v1/tasks.jsonl.gz', tasks);
  await put('datasets/abricot/items.tsv', 'id\ttext\n1\tIl sole splende.\n');
  await put('datasets/bad.jsonl', '{"ok":1}\n{broken\n');
  await put(
    'datasets/kotlin/train.parquet',
    new Uint8Array(parquetWriteBuffer({ columnData: [{ name: 'task_id', data: ['Kotlin/0', 'Kotlin/1'], type: 'STRING' }] })),
  );
});
afterAll(async () => {
  s3?.destroy();
  await moto?.stop();
  if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
});

async function readAll(ref: string, opts: SourceOptions): Promise<SourceRow[]> {
  const rows: SourceRow[] = [];
  for await (const row of (await openRows(ref, opts)).rows()) rows.push(row);
  return rows;
}

describe('s3:// sources', () => {
  it('streams rows of a gzip JSONL object with line numbers', async () => {
    const rows = await readAll(`s3://${BUCKET}/datasets/rocode/v1/tasks.jsonl.gz`, { cacheDir, s3Client: s3 });
    expect(rows.map((r) => [r.row.task_id, r.line])).toEqual([
      ['suma', 1],
      ['produs', 3],
    ]);
    expect(rows[0]?.file).toBe(`s3://${BUCKET}/datasets/rocode/v1/tasks.jsonl.gz`);
  });

  it('builds its client from AWS_ENDPOINT_URL_S3 in the environment', async () => {
    const env = { AWS_ENDPOINT_URL_S3: moto.endpoint, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' };
    const rows = await readAll(`s3://${BUCKET}/datasets/abricot/items.tsv`, { cacheDir, env });
    expect(rows.map((r) => r.row)).toEqual([{ id: '1', text: 'Il sole splende.' }]);
  });

  it('hashes the object as stored', async () => {
    const source = await openRows(`s3://${BUCKET}/datasets/rocode/v1/tasks.jsonl.gz`, { cacheDir, s3Client: s3 });
    expect(await source.sha256()).toBe(createHash('sha256').update(tasks).digest('hex'));
  });

  it('reads a parquet object', async () => {
    const rows = await readAll(`s3://${BUCKET}/datasets/kotlin/train.parquet`, { cacheDir, s3Client: s3 });
    expect(rows.map((r) => r.row.task_id)).toEqual(['Kotlin/0', 'Kotlin/1']);
  });

  it('names the object and line of a malformed row', async () => {
    await expect(readAll(`s3://${BUCKET}/datasets/bad.jsonl`, { cacheDir, s3Client: s3 })).rejects.toMatchObject({
      name: 'InputError',
      location: { file: `s3://${BUCKET}/datasets/bad.jsonl`, line: 2 },
    });
  });

  it('reports a missing object when opened', async () => {
    await expect(openRows(`s3://${BUCKET}/datasets/missing.jsonl`, { cacheDir, s3Client: s3 })).rejects.toMatchObject({
      name: 'InputError',
      location: { file: `s3://${BUCKET}/datasets/missing.jsonl` },
    });
  });
});
