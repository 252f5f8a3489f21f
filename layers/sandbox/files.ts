/**
 * File-system chores around sandboxed runs: handing a directory to the sandbox uid, locking
 * a build down so later runs cannot alter it, and reading back outputs without following
 * links the program may have planted.
 */
import { constants } from 'node:fs';
import { chmod, chown, lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runningAsRoot, SANDBOX_UID } from './isolation.ts';

/** Makes `path` owned by the sandbox uid when we are root (no-op otherwise). */
export async function giveToSandbox(path: string): Promise<void> {
  if (runningAsRoot()) await chown(path, SANDBOX_UID, SANDBOX_UID);
}

/** Recursively: owned by us, readable by all, writable by none but us (a build in the cache). */
export async function lockDown(dir: string): Promise<void> {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const walk = async (path: string): Promise<void> => {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return;
    if (runningAsRoot()) await chown(path, uid, gid);
    if (st.isDirectory()) {
      await chmod(path, 0o755);
      for (const entry of await readdir(path)) await walk(join(path, entry));
    } else {
      await chmod(path, st.mode & 0o111 ? 0o755 : 0o644);
    }
  };
  await walk(dir);
}

/**
 * Reads a regular file the program wrote, refusing links (a planted link to a secret must
 * not leak it into a verdict detail). Returns 'too-large' beyond `maxBytes`.
 */
export async function readOutputFile(path: string, maxBytes: number): Promise<string | undefined | 'too-large'> {
  let handle;
  try {
    const st = await lstat(path);
    if (!st.isFile()) return undefined;
    if (st.size > maxBytes) return 'too-large';
    // O_NOFOLLOW closes the window between lstat and open.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    return await handle.readFile('utf8');
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
