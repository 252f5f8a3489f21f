/**
 * File-system chores around sandboxed runs: handing a directory to the sandbox uid, locking
 * a build down so later runs cannot alter it, and reading back outputs without following
 * links the program may have planted.
 *
 * The calls are synchronous behind async signatures: each touches one small directory or
 * file once per sample or test, a few microseconds of syscalls, while each promise call
 * crosses to libuv's thread pool and back (~0.2 CPU-ms apiece on our paravirtualised 2-core
 * machines, measured 2026-12-02) on the core the sandboxed programs need.
 */
import { chmodSync, chownSync, closeSync, constants, lstatSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runningAsRoot, SANDBOX_UID } from './isolation.ts';

/** Makes `path` owned by the sandbox uid when we are root (no-op otherwise). */
export async function giveToSandbox(path: string): Promise<void> {
  if (runningAsRoot()) chownSync(path, SANDBOX_UID, SANDBOX_UID);
}

/** Recursively: owned by us, readable by all, writable by none but us (a build in the cache). */
export async function lockDown(dir: string): Promise<void> {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const root = runningAsRoot();
  const walk = (path: string): void => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return;
    if (root) chownSync(path, uid, gid);
    if (st.isDirectory()) {
      chmodSync(path, 0o755);
      for (const entry of readdirSync(path)) walk(join(path, entry));
    } else {
      chmodSync(path, st.mode & 0o111 ? 0o755 : 0o644);
    }
  };
  walk(dir);
}

/**
 * Reads a regular file the program wrote, refusing links (a planted link to a secret must
 * not leak it into a verdict detail). Returns 'too-large' beyond `maxBytes`.
 */
export async function readOutputFile(path: string, maxBytes: number): Promise<string | undefined | 'too-large'> {
  let fd: number | undefined;
  try {
    const st = lstatSync(path);
    if (!st.isFile()) return undefined;
    if (st.size > maxBytes) return 'too-large';
    // O_NOFOLLOW closes the window between lstat and open.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    return readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
