// Issue 35 (requests per item): a records part's message that comes again (a redelivered item of
// a complete part, a duplicate SQS delivery) finds the part's Parquet file stored with every
// record and reads no item again — one S3 GET, not one per item — on moto_server with the real
// handlers; a short or missing part file is still compacted from the items.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '#core/ports.ts';
import { keys } from '#core/run/keys.ts';
import { readManifest } from '#core/run/manifest-store.ts';
import { decodeRecords } from '#core/run/parquet.ts';
import { encodeRecords } from '#core/run/index.ts';
import { compactCloudPart } from '#app/cloud/aggregate.ts';
import { apiClient, drainStage, startCloud, type Cloud } from './cloud-harness.ts';

let cloud: Cloud;

beforeAll(async () => {
  cloud = await startCloud();
}, 60_000);

afterAll(async () => {
  await cloud?.stop();
});

const { startRun } = apiClient(() => cloud);

/** The harness's S3 store, counting the GETs of item documents. */
function counting(store: BlobStore): { store: BlobStore; itemReads: () => number } {
  let reads = 0;
  const counted: BlobStore = {
    put: (key, body, type) => store.put(key, body, type),
    get: (key) => store.get(key),
    getText: (key) => {
      if (key.includes('/items/')) reads += 1;
      return store.getText(key);
    },
    exists: (key) => store.exists(key),
    list: (prefix) => store.list(prefix),
    delete: (key) => store.delete(key),
    locate: (key) => store.locate(key),
  };
  return { store: counted, itemReads: () => reads };
}

describe('compacting a records part', () => {
  it('reads no item again when the part file is stored whole, and compacts a short one from the items', async () => {
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 4 });
    // Every item recorded; the part's message and the run's wait on the aggregate queue.
    for (const stage of ['plan', 'generate', 'python'] as const) await drainStage(cloud, stage);
    const { store, itemReads } = counting(cloud.store);
    const deps = { store, ledger: cloud.ledger };

    expect(await compactCloudPart(deps, runId, 0)).toMatchObject({ status: 'compacted', part: 0, records: 4, missing: 0 });
    expect(itemReads()).toBe(4);

    // The same part's message again.
    expect(await compactCloudPart(deps, runId, 0)).toMatchObject({ status: 'skipped' });
    expect(itemReads()).toBe(4);

    // A short part file (a write from before the part was whole) is not trusted: compacted again.
    const manifest = (await readManifest(cloud.store, runId))!;
    const partKey = keys.recordsPart(manifest.benchmark.id, runId, 0);
    const stored = await decodeRecords((await cloud.store.get(partKey))!, { run_id: runId, benchmark: manifest.benchmark.id });
    await cloud.store.put(partKey, encodeRecords(stored.slice(0, 3)), 'application/vnd.apache.parquet');
    expect(await compactCloudPart(deps, runId, 0)).toMatchObject({ status: 'compacted', records: 4 });
    expect(itemReads()).toBe(8);
    expect(await decodeRecords((await cloud.store.get(partKey))!, { run_id: runId, benchmark: manifest.benchmark.id })).toHaveLength(4);
  });
});
