/**
 * A lock file beside a download, so two processes never write the same partial file. A lock
 * whose owner process is gone is stale and taken over. Within one process, callers of the same
 * destination share one promise instead (see `download.ts`).
 */
import { open, readFile, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** Waits until `lockPath` is ours; resolves to the function that releases it. */
export async function acquireFileLock(lockPath: string, pollMs = 200): Promise<() => Promise<void>> {
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(lockPath, { force: true });
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err;
    }
    if (await isStale(lockPath)) {
      await rm(lockPath, { force: true });
      continue;
    }
    await sleep(pollMs);
  }
}

async function isStale(lockPath: string): Promise<boolean> {
  let owner: number;
  try {
    owner = Number((await readFile(lockPath, 'utf8')).trim());
  } catch {
    return false; // just released, or being written: try again
  }
  if (!Number.isInteger(owner) || owner <= 0) return false;
  try {
    process.kill(owner, 0);
    return false;
  } catch (err) {
    return (err as { code?: string }).code === 'ESRCH';
  }
}
