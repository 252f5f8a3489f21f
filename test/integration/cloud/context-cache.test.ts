// Issue 35 (requests per item): a warm stage reads a run's manifest and task snapshot once, and
// keeps at most a few runs' contexts (each holds the run's task pool), evicting the least
// recently used — the generate "run-context cache never evicts" leftover. On moto_server's S3,
// runs planned by the real plan handler.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '#core/ports.ts';
import { CONTEXT_CACHE_RUNS, RunContextCache } from '#app/cloud/context.ts';
import { apiClient, drainStage, startCloud, type Cloud } from './cloud-harness.ts';

let cloud: Cloud;

beforeAll(async () => {
  cloud = await startCloud();
}, 60_000);

afterAll(async () => {
  await cloud?.stop();
});

const { startRun } = apiClient(() => cloud);

/** The harness's S3 store, counting GETs of each run's manifest. */
function counting(store: BlobStore): { store: BlobStore; manifestReads: (runId: string) => number } {
  const reads = new Map<string, number>();
  const counted: BlobStore = {
    put: (key, body, type) => store.put(key, body, type),
    get: (key) => store.get(key),
    getText: (key) => {
      const run = /^runs\/([^/]+)\/manifest\.json$/.exec(key)?.[1];
      if (run !== undefined) reads.set(run, (reads.get(run) ?? 0) + 1);
      return store.getText(key);
    },
    exists: (key) => store.exists(key),
    list: (prefix) => store.list(prefix),
    delete: (key) => store.delete(key),
    locate: (key) => store.locate(key),
  };
  return { store: counted, manifestReads: (runId) => reads.get(runId) ?? 0 };
}

describe('the run-context cache of a warm stage', () => {
  it('reads a run once while it is cached, keeps at most maxRuns, and reads an evicted run again', async () => {
    const runs: string[] = [];
    for (let i = 0; i < 3; i++) runs.push(await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 1 }));
    await drainStage(cloud, 'plan');
    const [a, b, c] = runs as [string, string, string];
    const { store, manifestReads } = counting(cloud.store);
    const contexts = new RunContextCache({ store, ledger: cloud.ledger, clock: () => new Date() }, { maxRuns: 2 });

    for (let i = 0; i < 5; i++) expect((await contexts.get(a)).manifest.run_id).toBe(a);
    await contexts.get(b);
    await contexts.get(a); // a is now the most recently used
    await contexts.get(c); // evicts b, not a
    expect(contexts.cachedRuns()).toEqual([a, c]);
    await contexts.get(a);
    expect(manifestReads(a)).toBe(1);

    await contexts.get(b);
    expect(manifestReads(b)).toBe(2);
    expect(contexts.cachedRuns()).toEqual([a, b]);
    expect(CONTEXT_CACHE_RUNS).toBeGreaterThanOrEqual(2);
  });

  it('forgets a run whose build failed, so the next message reads it again', async () => {
    const { store, manifestReads } = counting(cloud.store);
    const contexts = new RunContextCache({ store, ledger: cloud.ledger, clock: () => new Date() }, { maxRuns: 2 });
    await expect(contexts.get('no-such-run')).rejects.toThrow(/has no manifest/);
    await expect(contexts.get('no-such-run')).rejects.toThrow(/has no manifest/);
    expect(manifestReads('no-such-run')).toBe(2);
    expect(contexts.cachedRuns()).toEqual([]);
  });
});
