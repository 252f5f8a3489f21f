/**
 * Reading the stored documents of a run (DESIGN §5) from a store, for local runs and cloud
 * stages alike: the manifest is read here and nowhere else. Its schema and parser
 * (`parseManifest`, zod with `schema_version`) live with the type in layers/core/run/manifest.ts.
 */
import type { BlobStore } from '#core/ports.ts';
import { keys } from '#core/run/keys.ts';
import { parseManifest, type Manifest } from '#core/run/manifest.ts';

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
