/**
 * Keeps the compile cache (`<cache>/builds/<key>/`, see `CompileCache`) under a size cap:
 * the oldest builds go first (a build's mtime is when it was compiled; a hit does not touch
 * it). A build evicted while still wanted is simply compiled again. Unfinished builds
 * (`<key>.tmp-*`) are left alone unless older than an hour (a killed compilation).
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

export interface PruneReport {
  /** Builds removed and the bytes they held. */
  removed: number;
  freedBytes: number;
  /** What the cache holds afterwards. */
  keptBytes: number;
  kept: number;
}

const STALE_TMP_MS = 3_600_000;

/** Bytes under a path (files and symlinks themselves, not their targets). */
export async function sizeOf(path: string): Promise<number> {
  let st;
  try {
    st = await lstat(path);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const entry of await readdir(path)) total += await sizeOf(join(path, entry));
  return total;
}

/** Removes the oldest builds until the cache holds at most `maxBytes`. */
export async function pruneBuilds(buildsDir: string, maxBytes: number, now: number = Date.now()): Promise<PruneReport> {
  let names: string[];
  try {
    names = await readdir(buildsDir);
  } catch {
    return { removed: 0, freedBytes: 0, keptBytes: 0, kept: 0 };
  }
  const builds: { path: string; bytes: number; mtime: number }[] = [];
  let removed = 0;
  let freedBytes = 0;
  for (const name of names) {
    const path = join(buildsDir, name);
    const st = await lstat(path);
    const bytes = await sizeOf(path);
    if (name.includes('.tmp-')) {
      if (now - st.mtimeMs > STALE_TMP_MS) {
        await rm(path, { recursive: true, force: true });
        removed++;
        freedBytes += bytes;
      }
      continue;
    }
    builds.push({ path, bytes, mtime: st.mtimeMs });
  }
  builds.sort((a, b) => a.mtime - b.mtime);
  let keptBytes = builds.reduce((a, b) => a + b.bytes, 0);
  let kept = builds.length;
  for (const build of builds) {
    if (keptBytes <= maxBytes) break;
    await rm(build.path, { recursive: true, force: true });
    keptBytes -= build.bytes;
    freedBytes += build.bytes;
    kept--;
    removed++;
  }
  return { removed, freedBytes, keptBytes, kept };
}
