// The BlobStore contract (layers/core/ports.ts), run against every adapter: the local
// directory store and S3 on a real moto_server.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '#core/ports.ts';
import { S3BlobStore } from '#aws/index.ts';
import { FsBlobStore } from '#local/index.ts';
import { awsClientConfig, createBucket, startMoto, type Moto } from '../../support/moto.ts';

const BUCKET = 'contract-blobs';
let moto: Moto;
let s3: S3Client;
const tempDirs: string[] = [];
let counter = 0;

beforeAll(async () => {
  moto = await startMoto();
  s3 = new S3Client(awsClientConfig(moto.endpoint));
  await createBucket(s3, BUCKET);
});

afterAll(async () => {
  s3?.destroy();
  await moto?.stop();
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const adapters: { name: string; create: () => Promise<BlobStore> }[] = [
  {
    name: 'FsBlobStore',
    create: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'polyeval-blobs-'));
      tempDirs.push(dir);
      return new FsBlobStore(dir);
    },
  },
  {
    name: 'S3BlobStore',
    // A fresh prefix per test isolates tests inside one bucket.
    create: async () => new S3BlobStore({ client: s3, bucket: BUCKET, prefix: `t${++counter}` }),
  },
];

describe.each(adapters)('BlobStore contract: $name', ({ create }) => {
  it('returns the bytes and the text that were put', async () => {
    const store = await create();
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    await store.put('datasets/x/blob.bin', bytes);
    await store.put('runs/r1/manifest.json', '{"model":"țară șir"}', 'application/json');

    expect(await store.get('datasets/x/blob.bin')).toEqual(bytes);
    expect(await store.getText('runs/r1/manifest.json')).toBe('{"model":"țară șir"}');
  });

  it('overwrites an existing key', async () => {
    const store = await create();
    await store.put('runs/r1/items/t1/0.json', 'first');
    await store.put('runs/r1/items/t1/0.json', 'second');

    expect(await store.getText('runs/r1/items/t1/0.json')).toBe('second');
    expect(await store.list('runs/r1/items/')).toEqual(['runs/r1/items/t1/0.json']);
  });

  it('answers undefined and false for a key that does not exist', async () => {
    const store = await create();
    await store.put('runs/r1/present.json', '{}');

    expect(await store.get('runs/r1/absent.json')).toBeUndefined();
    expect(await store.getText('runs/r1/absent.json')).toBeUndefined();
    expect(await store.exists('runs/r1/absent.json')).toBe(false);
    expect(await store.exists('runs/r1/present.json')).toBe(true);
  });

  it('lists every key under a prefix in lexicographic order and nothing else', async () => {
    const store = await create();
    const keys = ['runs/r1/items/b/1.json', 'runs/r1/items/a/0.json', 'runs/r1/items/a/10.json', 'runs/r1/items/a/2.json'];
    for (const key of keys) await store.put(key, key);
    await store.put('runs/r2/items/a/0.json', 'other run');
    await store.put('runs/r1/manifest.json', 'not an item');

    expect(await store.list('runs/r1/items/')).toEqual([...keys].sort());
    expect(await store.list('runs/r1/items/a/1')).toEqual(['runs/r1/items/a/10.json']);
    expect(await store.list('runs/r3/')).toEqual([]);
  });

  it('deletes a key so it is neither read nor listed, and deleting twice is harmless', async () => {
    const store = await create();
    await store.put('reports/r1.html', '<html></html>');
    await store.put('reports/r2.html', '<html></html>');

    await store.delete('reports/r1.html');
    await store.delete('reports/r1.html');

    expect(await store.get('reports/r1.html')).toBeUndefined();
    expect(await store.list('reports/')).toEqual(['reports/r2.html']);
  });

  it('creates a key only when it does not exist (a create-only write), leaving the first body in place', async () => {
    const store = await create();
    const putIfAbsent = store.putIfAbsent?.bind(store);
    expect(putIfAbsent).toBeDefined();

    expect(await putIfAbsent?.('runs/r1/toolchains/python.json', 'first', 'application/json')).toBe(true);
    expect(await putIfAbsent?.('runs/r1/toolchains/python.json', 'second', 'application/json')).toBe(false);
    await store.put('runs/r1/toolchains/cpp.json', 'put');
    expect(await putIfAbsent?.('runs/r1/toolchains/cpp.json', 'conditional')).toBe(false);

    expect(await store.getText('runs/r1/toolchains/python.json')).toBe('first');
    expect(await store.getText('runs/r1/toolchains/cpp.json')).toBe('put');
    expect(await store.list('runs/r1/toolchains/')).toEqual(['runs/r1/toolchains/cpp.json', 'runs/r1/toolchains/python.json']);
  });

  it('locates a key with a string naming the key', async () => {
    const store = await create();

    expect(store.locate('reports/r1.html')).toMatch(/reports\/r1\.html$/);
  });
});
