/**
 * Plain `https://` (or `http://`) data files, cached like Hub files under
 * `<cacheDir>/url/<sha256(url)[0:16]>/<file name>`. No credentials are ever sent. Used for
 * datasets whose Hub repository holds only a loading script that points elsewhere (ABRICOT).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { InputError } from '../core/errors.ts';
import { downloadToCache, type CachedFile } from './download.ts';
import type { SourceOptions } from './types.ts';

/** True when `ref` is an http(s) URL. */
export function isUrlRef(ref: string): boolean {
  return /^https?:\/\//i.test(ref);
}

/** Path of a URL's file in the cache. */
export function urlCachePath(cacheDir: string, url: string): string {
  const key = createHash('sha256').update(url).digest('hex').slice(0, 16);
  const name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || 'download';
  return join(cacheDir, 'url', key, name.replace(/[^\w.-]/g, '_'));
}

/** Returns the cached copy of `url`, downloading it when absent. */
export async function downloadUrl(url: string, opts: SourceOptions): Promise<CachedFile> {
  try {
    new URL(url);
  } catch {
    throw new InputError('invalid URL', { file: url });
  }
  return downloadToCache({
    url,
    dest: urlCachePath(opts.cacheDir, url),
    label: url,
    ...(opts.fetchImpl ? { fetchImpl: opts.fetchImpl } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
  });
}
