/**
 * Downloads one file of a Hub dataset repository into the cache through
 * `{endpoint}/datasets/{repo}/resolve/{revision}/{path}`. The Hub answers an LFS file with a
 * redirect to its CDN whose first response carries `X-Linked-Etag` (the sha256) and
 * `X-Linked-Size`; a small file comes directly with a git `ETag`.
 *
 * Cache layout: `<cacheDir>/hub/datasets/<owner>/<name>/<revision>/<path>` (+ `.sha256`). A
 * branch name such as `main` is cached under its name: pin a commit for reproducible runs
 * (the run manifest records the content hash either way).
 */
import { join } from 'node:path';
import { downloadToCache, type CachedFile } from '../download.ts';
import type { SourceOptions } from '../types.ts';
import { AUTH_HINT, authHeaders, encodeRepoPath, encodeRevision, hubConfig } from './hub-config.ts';
import { formatHubRef, parseHubRef, type HubFileRef } from './hub-ref.ts';

/** Path of a Hub file in the cache, whether or not it is there yet. */
export function hubCachePath(cacheDir: string, file: HubFileRef): string {
  return join(cacheDir, 'hub', 'datasets', ...file.repo.split('/'), encodeRevision(file.revision), ...file.path.split('/'));
}

/** Returns the cached copy of `path` in dataset `repo`, downloading it when absent. */
export async function downloadHubFile(repo: string, path: string, opts: SourceOptions, select: { revision?: string } = {}): Promise<CachedFile> {
  // Round-trip through the ref parser so repo and path get the same checks as a ref.
  const file = parseHubRef(formatHubRef({ repo, path, revision: select.revision ?? 'main' }));
  return downloadHubRef(file, opts);
}

/** Like {@link downloadHubFile}, for a parsed `hf://` ref. */
export async function downloadHubRef(file: HubFileRef, opts: SourceOptions): Promise<CachedFile> {
  const config = hubConfig(opts);
  const url = `${config.endpoint}/datasets/${file.repo}/resolve/${encodeRevision(file.revision)}/${encodeRepoPath(file.path)}`;
  return downloadToCache({
    url,
    dest: hubCachePath(opts.cacheDir, file),
    label: formatHubRef(file),
    headers: authHeaders(config),
    fetchImpl: config.fetchImpl,
    authHint: AUTH_HINT,
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
  });
}
