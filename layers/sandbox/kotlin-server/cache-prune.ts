/**
 * Removes compile-server builds nobody uses any more from `<cache>/kotlin-server/`.
 *
 * Each build lives in a directory named by its fingerprint (build.ts), ~85 MB with its
 * class-data archive, and every `npm ci` or JDK upgrade makes a new one. Another checkout or
 * install may still be using an older one, so a sibling is removed only when it has not been
 * used for `maxAgeMs` (a day by default): every use touches its `last-used` marker, and the
 * directory's own and its marker's modification times are the evidence. A removal first
 * renames the directory out of the way (atomic, so no run ever sees half of one, and of two
 * runs pruning at once only one gets it), then deletes it. Symbolic links are never followed:
 * entries that are not real directories are left alone, and `rm` unlinks links inside a
 * directory without entering them. Every error is ignored: pruning must never fail a run.
 */
import { lstatSync, utimesSync, writeFileSync } from 'node:fs';
import { readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** The file whose modification time says when a build was last used. */
export const LAST_USED = 'last-used';

/** Builds unused for this long are removed. */
export const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

/** A build directory (build.ts: 16 hex digits), a builder's scratch directory, or a pruner's leftover. */
const BUILD = /^[0-9a-f]{16}$/;
const SCRATCH = /^\.build-[0-9a-f]{16}-/;
const TRASH = /^\.trash-/;

/** Marks `dir` as used now (creating its marker on first use). */
export function markUsed(dir: string): void {
  const marker = join(dir, LAST_USED);
  const now = new Date();
  try {
    utimesSync(marker, now, now);
  } catch {
    try {
      writeFileSync(marker, '');
    } catch {
      // a read-only cache (an executor image): nothing is pruned there either
    }
  }
}

/** When `path` was last modified, without following a link; undefined when it is gone. */
function modified(path: string): number | undefined {
  try {
    return lstatSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Removes from `root` every build directory other than `current` whose last use is older than
 * `maxAgeMs` before `now`, and builders' scratch directories as old (left by a killed build).
 * @returns the names removed
 * @example
 * await pruneServerCache(join(cacheDir(), 'kotlin-server'), hash)
 */
export async function pruneServerCache(root: string, current: string, maxAgeMs = STALE_AFTER_MS, now = Date.now()): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const entry of entries) {
    const name = entry.name;
    if (name === current || !entry.isDirectory()) continue; // a symlink is not a directory here
    const path = join(root, name);
    if (TRASH.test(name)) {
      await removeQuietly(path); // renamed away by a pruner that did not finish
      continue;
    }
    if (!BUILD.test(name) && !SCRATCH.test(name)) continue;
    const lastUse = Math.max(modified(path) ?? now, modified(join(path, LAST_USED)) ?? 0);
    if (now - lastUse < maxAgeMs) continue;
    const trash = join(root, `.trash-${name}-${process.pid}`);
    try {
      await rename(path, trash);
    } catch {
      continue; // gone already (another run pruned it) or not ours to move
    }
    await removeQuietly(trash);
    removed.push(name);
  }
  return removed;
}

async function removeQuietly(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch {
    // another run is removing it too; what is left goes next time
  }
}
