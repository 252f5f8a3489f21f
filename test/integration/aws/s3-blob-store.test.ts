// S3BlobStore behaviour beyond the shared contract: paging, prefixes, content types, faults.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessError } from '#core/errors.ts';
import { S3BlobStore } from '#aws/index.ts';
import { awsClientConfig, createBucket, startMoto, type Moto } from '../../support/moto.ts';

const BUCKET = 'polyeval-s3-tests';
let moto: Moto;
let s3: S3Client;

beforeAll(async () => {
  moto = await startMoto();
  s3 = new S3Client(awsClientConfig(moto.endpoint));
  await createBucket(s3, BUCKET);
});

afterAll(async () => {
  s3?.destroy();
  await moto?.stop();
});

describe('S3BlobStore', () => {
  it('lists across several pages in order', async () => {
    const store = new S3BlobStore({ client: s3, bucket: BUCKET, prefix: 'paging', listPageSize: 2 });
    const keys = Array.from({ length: 7 }, (_, index) => `runs/r1/items/t${index}/0.json`);
    for (const key of [...keys].reverse()) await store.put(key, '{}');

    expect(await store.list('runs/r1/')).toEqual(keys);
  });

  it('keeps its objects under its prefix and strips the prefix from listed keys', async () => {
    const store = new S3BlobStore({ client: s3, bucket: BUCKET, prefix: '/tenant-a/' });
    await store.put('runs/r9/manifest.json', '{}');

    const raw = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'tenant-a/runs/r9/' }));

    expect(raw.Contents?.map((object) => object.Key)).toEqual(['tenant-a/runs/r9/manifest.json']);
    expect(await store.list('runs/r9/')).toEqual(['runs/r9/manifest.json']);
    expect(store.locate('runs/r9/manifest.json')).toBe(`s3://${BUCKET}/tenant-a/runs/r9/manifest.json`);
  });

  it('stores the given content type, or one guessed from the extension', async () => {
    const store = new S3BlobStore({ client: s3, bucket: BUCKET, prefix: 'types' });
    await store.put('reports/r1.html', '<html></html>');
    await store.put('results/metrics/benchmark=abricot/run_id=r1/metrics.parquet', new Uint8Array([80, 65, 82, 49]));
    await store.put('runs/r1/blob', 'x', 'text/plain');

    const typeOf = async (key: string) => (await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `types/${key}` }))).ContentType;

    expect(await typeOf('reports/r1.html')).toBe('text/html; charset=utf-8');
    expect(await typeOf('results/metrics/benchmark=abricot/run_id=r1/metrics.parquet')).toBe('application/vnd.apache.parquet');
    expect(await typeOf('runs/r1/blob')).toBe('text/plain');
  });

  it('raises a HarnessError naming the location when the bucket does not exist', async () => {
    const store = new S3BlobStore({ client: s3, bucket: 'no-such-bucket' });

    const failure = store.get('runs/r1/manifest.json');

    await expect(failure).rejects.toBeInstanceOf(HarnessError);
    await expect(failure).rejects.toThrow('s3://no-such-bucket/runs/r1/manifest.json');
  });

  // S3's two answers to a PUT with If-None-Match: * that does not create the object ("How to
  // prevent object overwrites with conditional writes", Amazon S3 user guide): 412
  // PreconditionFailed, the key exists; 409 ConditionalRequestConflict, a conflicting operation ran
  // meanwhile (which may have failed, or been a delete) and the caller should retry. moto never
  // answers 409, so a local server answers each as S3 does (an XML <Error> body) to the real client.
  it.each([
    [412, 'PreconditionFailed', false],
    [409, 'ConditionalRequestConflict', 'retry'],
  ] as const)('answers a conditional put refused with %i %s as the key existing, or throws for a retry', async (status, code, expected) => {
    const seen: IncomingMessage['headers'][] = [];
    const server = createServer((request, response) => {
      seen.push(request.headers);
      request.resume();
      request.on('end', () => {
        response.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': 'r1' });
        response.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>refused</Message><RequestId>r1</RequestId></Error>`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new S3Client({ ...awsClientConfig(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), maxAttempts: 1 });
    try {
      const store = new S3BlobStore({ client, bucket: BUCKET });
      const put = store.putIfAbsent('runs/r1/toolchains/java.json', '{}');
      if (expected === 'retry') {
        await expect(put).rejects.toBeInstanceOf(HarnessError);
        await expect(put).rejects.toThrow(`s3://${BUCKET}/runs/r1/toolchains/java.json: ${code}`);
      } else expect(await put).toBe(false);
      expect(seen[0]?.['if-none-match']).toBe('*');
    } finally {
      client.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
