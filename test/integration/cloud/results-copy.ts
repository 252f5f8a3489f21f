/**
 * Athena's view of the cloud's results, for tests: the `results/` objects the cloud run wrote
 * to S3 (moto), copied to a temporary directory and read by DuckDB with the same hive layout,
 * so the shipped Athena SQL runs unchanged over exactly what the pipeline wrote.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { BlobStore } from '#core/ports.ts';
import { DuckDbResultsQuery } from '#local/index.ts';

export interface ResultsCopy {
  query: DuckDbResultsQuery;
  /** Closes DuckDB and removes the copy. */
  close(): Promise<void>;
}

export async function openResultsCopy(store: BlobStore): Promise<ResultsCopy> {
  const dir = await mkdtemp(join(tmpdir(), 'polyeval-cloud-results-'));
  try {
    for (const key of await store.list('results/')) {
      const target = join(dir, key);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, (await store.get(key)) ?? new Uint8Array());
    }
    const query = await DuckDbResultsQuery.open(dir);
    return {
      query,
      close: async () => {
        await query.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
