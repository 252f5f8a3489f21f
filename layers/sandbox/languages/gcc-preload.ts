/**
 * `pe-gcc-preload.so` (pe-gcc-preload.c beside this file: what it does and why is in its
 * header), preloaded into sandboxed g++ compilations so the precompiled header and the
 * compiler's heap cost a few hundred page faults instead of ~14,000. Found like the
 * supervisor: built once per machine into the cache directory (at image build into the
 * image's cache), named by the hash of its source. Where it cannot be built the compiler
 * runs without it (same output, slower).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { access, chmod, constants, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensureSharedDir } from '../supervisor.ts';

const run = promisify(execFile);

// Beside this module (source runs, image bundles) or under layers/ (the CLI bundle in dist/).
const SOURCE_CANDIDATES = [new URL('./pe-gcc-preload.c', import.meta.url), new URL('../layers/sandbox/languages/pe-gcc-preload.c', import.meta.url)].map(
  (url) => fileURLToPath(url),
);

let source: string | undefined;

/** The library's C source, read once; undefined when no build ships it. */
export function gccPreloadSource(): string | undefined {
  if (source === undefined) {
    const path = SOURCE_CANDIDATES.find((p) => existsSync(p));
    if (path) source = readFileSync(path, 'utf8');
  }
  return source;
}

/** File name of the library built from the current source. */
export function gccPreloadName(): string {
  return `pe-gcc-preload-${createHash('sha256')
    .update(gccPreloadSource() ?? '')
    .digest('hex')
    .slice(0, 12)}.so`;
}

async function readable(path: string): Promise<boolean> {
  try {
    await access(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The library's path in `cacheDir` (built there with gcc on first use, or at image build
 * into the image's cache, like the precompiled headers), or undefined with why when there is none.
 */
export async function ensureGccPreload(cacheDir: string): Promise<{ path: string | undefined; detail: string }> {
  const text = gccPreloadSource();
  if (text === undefined) return { path: undefined, detail: 'pe-gcc-preload.c not found: g++ runs without it' };
  const name = gccPreloadName();
  const target = join(cacheDir, name);
  if (await readable(target)) return { path: target, detail: `g++ runs with ${target}` };
  const tmp = `${target}.${process.pid}.${Date.now()}`;
  try {
    await ensureSharedDir(cacheDir);
    await writeFile(`${tmp}.c`, text);
    await run('gcc', ['-O2', '-shared', '-fPIC', '-o', tmp, `${tmp}.c`], { timeout: 120_000 });
    await chmod(tmp, 0o755);
    await rename(tmp, target); // atomic: concurrent builders race harmlessly
    return { path: target, detail: `g++ runs with ${target}` };
  } catch (cause) {
    return { path: undefined, detail: `pe-gcc-preload not built, g++ runs without it: ${String(cause).split('\n')[0]}` };
  } finally {
    await rm(`${tmp}.c`, { force: true });
    await rm(tmp, { force: true });
  }
}
