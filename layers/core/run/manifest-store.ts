/**
 * A run's manifest in a store (DESIGN §5), read and written here and nowhere else, by local
 * runs and cloud stages alike: written as a stored document (`schema_version` first, indented),
 * read with its zod schema (`parseManifest`).
 */
import type { BlobStore } from '../ports.ts';
import { storedJson } from './documents.ts';
import { keys } from './keys.ts';
import { parseManifest, type Manifest } from './manifest.ts';

/** What reading a document takes of a store. */
export type DocumentSource = Pick<BlobStore, 'getText' | 'locate'>;

/** The manifest at `key`, or undefined when there is none. */
export async function readManifestAt(store: DocumentSource, key: string): Promise<Manifest | undefined> {
  const text = await store.getText(key);
  return text === undefined ? undefined : parseManifest(text, store.locate(key));
}

/** A run's manifest (`runs/<run_id>/manifest.json`), or undefined when the run has none. */
export function readManifest(store: DocumentSource, runId: string): Promise<Manifest | undefined> {
  return readManifestAt(store, keys.manifest(runId));
}

/**
 * Writes a run's manifest at `runs/<run_id>/manifest.json` and at each of `also` (the cloud's
 * kept copy), the same bytes everywhere.
 * @example
 * await writeManifest(store, plan.manifest);
 */
export async function writeManifest(store: Pick<BlobStore, 'put'>, manifest: Manifest, also: readonly string[] = []): Promise<void> {
  const text = storedJson(manifest, 2);
  for (const key of [...also, keys.manifest(manifest.run_id)]) await store.put(key, text, 'application/json');
}
