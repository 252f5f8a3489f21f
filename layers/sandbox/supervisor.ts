/**
 * Builds `pe-supervisor` (see supervisor-source.ts) once per machine into the cache
 * directory, named by the hash of its source so an edited supervisor is rebuilt.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { access, chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { HarnessError } from '#core/errors.ts';
import { SUPERVISOR_SOURCE } from './supervisor-source.ts';

const run = promisify(execFile);

/** Creates a directory every sandbox uid can traverse and read (0755), whatever the umask. */
export async function ensureSharedDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  for (let d = dirname(dir); d !== dirname(d); d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) throw new HarnessError(`${d} is not traversable by other users, so sandboxed code cannot reach ${dir}: choose another directory or chmod o+x ${d}`);
  }
}

/** Returns the path of the compiled supervisor, compiling it on first use. */
export async function ensureSupervisor(cacheDir: string): Promise<string> {
  const hash = createHash('sha256').update(SUPERVISOR_SOURCE).digest('hex').slice(0, 12);
  const binary = join(cacheDir, `pe-supervisor-${hash}`);
  try {
    await access(binary);
    return binary;
  } catch {
    // not built yet
  }
  await ensureSharedDir(cacheDir);
  const tmp = `${binary}.${process.pid}.${Date.now()}`;
  const src = `${tmp}.c`;
  await writeFile(src, SUPERVISOR_SOURCE);
  try {
    await run('gcc', ['-O2', '-o', tmp, src], { timeout: 60_000 });
    await chmod(tmp, 0o755);
    await rename(tmp, binary); // atomic: concurrent builders race harmlessly
  } catch (cause) {
    throw new HarnessError(`cannot build the sandbox supervisor with gcc: ${String(cause)}`, { cause });
  } finally {
    await rm(src, { force: true });
    await rm(tmp, { force: true });
  }
  return binary;
}
