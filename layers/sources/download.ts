/**
 * Downloads a URL into the cache: resumable (a `.incomplete` partial file and a `Range`
 * request; a server that ignores `Range` restarts the file cleanly), checksummed (against a
 * sha256 etag, as the Hub's LFS files carry), atomic (renamed into place only when complete
 * and verified), safe when several processes or calls want the same file (a lock file and a
 * shared promise), and a cache hit makes no request at all.
 *
 * Redirects are followed by hand so the first response's headers (the Hub's `X-Linked-Etag`,
 * `X-Linked-Size`) are kept, and credentials go only to the origin they were meant for.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { dirname } from 'node:path';
import { HarnessError, InputError } from '../core/errors.ts';
import { acquireFileLock } from './file-lock.ts';
import { sha256FromEtag, sha256OfFile } from './hash.ts';

/** What to fetch and where to keep it. */
export interface DownloadRequest {
  url: string;
  /** Final path of the file in the cache. */
  dest: string;
  /** Names the file in messages (e.g. the `hf://` ref). */
  label: string;
  /** Sent only to the origin of `url` (never across a redirect to another host). */
  headers?: Record<string, string>;
  fetchImpl?: typeof fetch;
  onProgress?: (bytes: number, total?: number) => void;
  /** Attempts before giving up on network failures and 5xx answers (default 3); each resumes. */
  maxAttempts?: number;
  /** Appended to the message of a 401/403 answer (e.g. how to set a token). */
  authHint?: string;
}

/** A file in the cache with its verified size and content hash. */
export interface CachedFile {
  path: string;
  sha256: string;
  size: number;
  /** True when nothing was downloaded. */
  cached: boolean;
}

class TransientError extends Error {}

const inflight = new Map<string, Promise<CachedFile>>();

/** Returns the cached file at `req.dest`, downloading it first when absent. */
export async function downloadToCache(req: DownloadRequest): Promise<CachedFile> {
  const hit = await readCached(req.dest);
  if (hit) return hit;
  const running = inflight.get(req.dest);
  if (running) return running;
  const job = lockedDownload(req);
  inflight.set(req.dest, job);
  try {
    return await job;
  } finally {
    inflight.delete(req.dest);
  }
}

/** The cached copy of `dest`, if complete; its hash is kept in a `.sha256` file beside it. */
export async function readCached(dest: string): Promise<CachedFile | undefined> {
  let size: number;
  try {
    size = (await stat(dest)).size;
  } catch {
    return undefined;
  }
  let sha256: string;
  try {
    sha256 = (await readFile(`${dest}.sha256`, 'utf8')).trim();
  } catch {
    sha256 = await sha256OfFile(dest);
    await writeFile(`${dest}.sha256`, sha256);
  }
  return { path: dest, sha256, size, cached: true };
}

async function lockedDownload(req: DownloadRequest): Promise<CachedFile> {
  await mkdir(dirname(req.dest), { recursive: true });
  const release = await acquireFileLock(`${req.dest}.lock`);
  try {
    const hit = await readCached(req.dest); // another process may have finished meanwhile
    if (hit) return hit;
    const attempts = req.maxAttempts ?? 3;
    let last: unknown;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      try {
        return await attemptDownload(req);
      } catch (err) {
        if (!(err instanceof TransientError)) throw err;
        last = err;
      }
    }
    throw new HarnessError(`download of ${req.label} failed after ${attempts} attempts: ${(last as Error).message}`, { cause: last });
  } finally {
    await release();
  }
}

interface FirstHeaders {
  etag?: string;
  size?: number;
}

async function attemptDownload(req: DownloadRequest): Promise<CachedFile> {
  const partial = `${req.dest}.incomplete`;
  const offset = await sizeOf(partial);
  const fetchImpl = req.fetchImpl ?? fetch;
  const origin = new URL(req.url).origin;
  let url = req.url;
  let first: FirstHeaders | undefined;
  for (let hop = 0; hop < 10; hop += 1) {
    const headers: Record<string, string> = {
      ...(new URL(url).origin === origin ? req.headers : {}),
      'accept-encoding': 'identity',
      ...(offset > 0 ? { range: `bytes=${offset}-` } : {}),
    };
    let res: Response;
    try {
      res = await fetchImpl(url, { headers, redirect: 'manual' });
    } catch (err) {
      throw new TransientError(`cannot reach ${url} (${(err as Error).message})`, { cause: err });
    }
    first ??= {
      etag: res.headers.get('x-linked-etag') ?? res.headers.get('etag') ?? undefined,
      size: numberHeader(res.headers.get('x-linked-size')),
    };
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      url = new URL(location, url).href;
      continue;
    }
    return await receive(req, res, partial, offset, first);
  }
  throw new HarnessError(`too many redirects while downloading ${req.label}`);
}

async function receive(req: DownloadRequest, res: Response, partial: string, offset: number, first: FirstHeaders): Promise<CachedFile> {
  if (res.status === 416) {
    await res.body?.cancel();
    await rm(partial, { force: true });
    throw new TransientError('the server refused to resume; starting over');
  }
  if (res.status === 429 || res.status >= 500) {
    await res.body?.cancel();
    throw new TransientError(`HTTP ${res.status}`);
  }
  if (res.status !== 200 && res.status !== 206) {
    await res.body?.cancel();
    const hint = (res.status === 401 || res.status === 403) && req.authHint ? ` ${req.authHint}` : '';
    throw new InputError(`cannot download: HTTP ${res.status} ${res.statusText}${hint}`, { file: req.label });
  }
  let start = 0;
  let total = first.size;
  if (res.status === 206) {
    const range = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(res.headers.get('content-range') ?? '');
    if (!range || Number(range[1]) !== offset) {
      await res.body?.cancel();
      await rm(partial, { force: true });
      throw new TransientError('the server resumed at the wrong offset; starting over');
    }
    start = offset;
    if (range[2] !== '*') total ??= Number(range[2]);
  } else {
    total ??= numberHeader(res.headers.get('content-length'));
  }
  const hash = createHash('sha256');
  if (start > 0) await hashFile(partial, hash);
  const out = createWriteStream(partial, { flags: start > 0 ? 'a' : 'w' });
  let received = start;
  try {
    if (res.body) {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        hash.update(chunk);
        received += chunk.byteLength;
        if (!out.write(chunk)) await once(out, 'drain');
        req.onProgress?.(received, total);
      }
    }
  } catch (err) {
    throw new TransientError(`connection lost after ${received} bytes (${(err as Error).message})`, { cause: err });
  } finally {
    await closeStream(out);
  }
  if (total !== undefined && received < total) throw new TransientError(`received ${received} of ${total} bytes`);
  const sha256 = hash.digest('hex');
  const expected = sha256FromEtag(first.etag);
  if ((total !== undefined && received > total) || (expected !== undefined && expected !== sha256)) {
    await rm(partial, { force: true });
    throw new HarnessError(
      `checksum mismatch for ${req.label}: expected sha256 ${expected ?? '?'} and ${total ?? '?'} bytes, ` +
        `got ${sha256} and ${received} bytes; the download was deleted`,
    );
  }
  await writeFile(`${req.dest}.sha256`, sha256);
  await rename(partial, req.dest);
  return { path: req.dest, sha256, size: received, cached: false };
}

async function hashFile(path: string, hash: Hash): Promise<void> {
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
}

async function closeStream(out: WriteStream): Promise<void> {
  if (out.closed) return;
  const closed = once(out, 'close');
  out.end();
  await closed;
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

function numberHeader(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}
