/**
 * Finds `pe-supervisor` (see pe-supervisor.c): prebuilt in a read-only directory (the
 * executor images build it at `docker build`, so Python and Kotlin images need no gcc and
 * the program cannot replace it), else built once per machine into the cache directory.
 * Both are named by the hash of the source, so an edited supervisor is rebuilt.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { access, chmod, constants, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { HarnessError } from '#core/errors.ts';
import { supervisorSource } from './supervisor-source.ts';

const run = promisify(execFile);

/**
 * Creates a directory every sandbox uid can traverse and read (0755), whatever the umask.
 * Synchronous calls behind the async signature: the compile cache asks once per compilation,
 * and a promise call costs far more CPU in the thread pool's round trip than the syscalls.
 */
export async function ensureSharedDir(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  for (let d = dirname(dir); d !== dirname(d); d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0)
      throw new HarnessError(`${d} is not traversable by other users, so sandboxed code cannot reach ${dir}: choose another directory or chmod o+x ${d}`);
  }
}

/**
 * How the supervisor is linked, first choice first. Statically (as a position-independent
 * executable, so it keeps address-space randomisation): it is started once per sandboxed
 * process, and on our paravirtualised 2-core machines the dynamic loader's start-up (mapping
 * libc, relocating, ~60 page faults) was 3 of its ~15 CPU-ms (measured 2026-12-02: a
 * supervised /bin/true 15.0 → 11.6 CPU-ms). Where no static libc is installed (Amazon Linux's
 * glibc-devel has none) it is linked as before.
 */
const LINK_MODES: readonly (readonly string[])[] = [['-static-pie'], []];

/** File name of the supervisor built from the current source (and link modes: a changed mode rebuilds it). */
export function supervisorName(): string {
  const hash = createHash('sha256').update(supervisorSource()).update(JSON.stringify(LINK_MODES));
  return `pe-supervisor-${hash.digest('hex').slice(0, 12)}`;
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
    await linkFirstThatWorks(tmp, src);
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

/** Compiles `src` into `out` with the first link mode gcc accepts here; throws the last failure. */
async function linkFirstThatWorks(out: string, src: string): Promise<void> {
  let failure: unknown;
  for (const mode of LINK_MODES) {
    try {
      await run('gcc', ['-O2', ...mode, '-o', out, src], { timeout: 60_000 });
      return;
    } catch (cause) {
      failure = cause;
    }
  }
  throw failure;
}
