/**
 * Reading the stored documents of a run (DESIGN §5), one function per document, for local
 * runs and cloud stages alike. The manifest is read here and nowhere else.
 *
 * TODO(docs): the zod schemas with `schema_version` (engineer "docs") replace the bare
 * casts below; callers already go through these functions only.
 */
import { InputError } from '#core/errors.ts';
import type { BlobStore } from '#core/ports.ts';
import { keys } from '#core/run/keys.ts';
import type { Manifest } from '#core/run/manifest.ts';

/** The manifest in `text`, read from `origin` (a key or a locator, for messages). */
export function parseManifest(text: string, origin: string): Manifest {
  try {
    return JSON.parse(text) as Manifest;
  } catch {
    throw new InputError('is not JSON', { file: origin });
  }
}

/** The manifest at `key`, or undefined when there is none. */
export async function readManifestAt(store: BlobStore, key: string): Promise<Manifest | undefined> {
  const text = await store.getText(key);
  return text === undefined ? undefined : parseManifest(text, store.locate(key));
}

/** A run's manifest (`runs/<run_id>/manifest.json`), or undefined when the run has none. */
export function readManifest(store: BlobStore, runId: string): Promise<Manifest | undefined> {
  return readManifestAt(store, keys.manifest(runId));
}
