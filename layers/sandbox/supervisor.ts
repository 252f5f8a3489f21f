/**
 * Finds `pe-supervisor` (see pe-supervisor.c): prebuilt in a read-only directory (the
 * executor images build it at `docker build`, so Python and Kotlin images need no gcc and
 * the program cannot replace it), else built once per machine into the cache directory.
 * Both are named by the hash of the source, so an edited supervisor is rebuilt.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { access, chmod, constants, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { HarnessError } from '#core/errors.ts';
import { supervisorSource } from './supervisor-source.ts';

const run = promisify(execFile);

/** Creates a directory every sandbox uid can traverse and read (0755), whatever the umask. */
export async function ensureSharedDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  for (let d = dirname(dir); d !== dirname(d); d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0)
      throw new HarnessError(`${d} is not traversable by other users, so sandboxed code cannot reach ${dir}: choose another directory or chmod o+x ${d}`);
  }
}

/** File name of the supervisor built from the current source. */
export function supervisorName(): string {
  return `pe-supervisor-${createHash('sha256').update(supervisorSource()).digest('hex').slice(0, 12)}`;
}

/**
 * Returns the path of the compiled supervisor: the prebuilt one in `prebuiltDir` when it
 * is there, else the one in `cacheDir`, compiling it with gcc on first use.
 */
export async function ensureSupervisor(cacheDir: string, prebuiltDir?: string): Promise<string> {
  if (prebuiltDir !== undefined) {
    const prebuilt = join(prebuiltDir, supervisorName());
    if (await executableFile(prebuilt)) return prebuilt;
  }
  const binary = join(cacheDir, supervisorName());
  if (await executableFile(binary)) return binary;
  return buildSupervisor(cacheDir, binary);
}

async function executableFile(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Compiles the supervisor into `binary` (the image build calls this through prebuild.ts). */
export async function buildSupervisor(cacheDir: string, binary = join(cacheDir, supervisorName())): Promise<string> {
  await ensureSharedDir(cacheDir);
  const tmp = `${binary}.${process.pid}.${Date.now()}`;
  const src = `${tmp}.c`;
  await writeFile(src, supervisorSource());
  try {
    await run('gcc', ['-O2', '-o', tmp, src], { timeout: 60_000 });
    await chmod(tmp, 0o755);
    await rename(tmp, binary); // atomic: concurrent builders race harmlessly
  } catch (cause) {
    throw new HarnessError(`cannot build the sandbox supervisor with gcc (executor images ship it prebuilt; install gcc to build it here): ${String(cause)}`, {
      cause,
    });
  } finally {
    await rm(src, { force: true });
    await rm(tmp, { force: true });
  }
  return binary;
}
