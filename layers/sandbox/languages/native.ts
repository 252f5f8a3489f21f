/**
 * Shared pieces of the gcc-based runtimes (c.ts, cpp.ts): toolchain probing, sandboxed
 * compilation, and the unit-test wrapper that renames the test's `main`.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ToolchainInfo } from '#core/ports.ts';
import { HarnessError } from '#core/errors.ts';
import { COMPILER_KILLED, type CompileResult, type RunCommand, type RuntimeContext } from '../runtime.ts';
import { findNativeMain } from './native-main.ts';

const run = promisify(execFile);

/** Environment for compilers: gcc finds `as` and `ld` on PATH. */
export const COMPILER_ENV = { PATH: '/usr/bin:/bin', LANG: 'C' };

/**
 * glibc's malloc settings for sandboxed compilations (never for the programs they build):
 * the heap in transparent huge pages, grown 32 MiB at a time, so cc1plus, as and ld.gold
 * fault their heaps in a few hundred times instead of ~4,000 (a fifth of a C++ compilation's
 * CPU where page faults are costly; docs/sandbox.md). Where the memory comes from, never what
 * it holds: objects and diagnostics stay byte-identical (test/sandbox/gcc-preload.test.ts).
 * A glibc older than 2.35 ignores the tunables it does not know.
 */
export const COMPILER_MALLOC_ENV = { GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1:glibc.malloc.top_pad=33554432' };

/**
 * glibc uses huge pages only after reading the kernel's setting from here, which the sandbox
 * does not show by default (without it, `hugetlb=1` silently does nothing): compilations get
 * this directory read-only. It holds the transparent-huge-page settings, nothing else.
 */
const THP_SETTINGS = '/sys/kernel/mm/transparent_hugepage';
export const COMPILER_READ_ONLY: readonly string[] = existsSync(THP_SETTINGS) ? [THP_SETTINGS] : [];

/** `gcc -dumpfullversion` and friends, memoised per compiler. */
const versions = new Map<string, Promise<string | undefined>>();
export function compilerVersion(compiler: string): Promise<string | undefined> {
  let v = versions.get(compiler);
  if (!v) {
    v = run(compiler, ['-dumpfullversion'], { env: COMPILER_ENV, timeout: 20_000 })
      .then((r) => r.stdout.trim())
      .catch(() => undefined);
    versions.set(compiler, v);
  }
  return v;
}

export async function nativeToolchain(language: string, compiler: string, flags: string[], detail?: string): Promise<ToolchainInfo> {
  const version = await compilerVersion(compiler);
  if (!version) return { language, compiler, flags, available: false, detail: `${compiler} not found` };
  return { language, compiler, version, flags, available: true, ...(detail ? { detail } : {}) };
}

/**
 * The whole environment of a compilation: PATH, the malloc settings, the runtime's own
 * additions (`extra`, e.g. pe-gcc-preload.so) and TMPDIR in the build directory. Sandboxed
 * compilations get exactly this, and so do the bench's floor compilations (sim/floor.ts).
 */
export function nativeCompilerEnv(buildDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...COMPILER_ENV, ...COMPILER_MALLOC_ENV, ...extra, TMPDIR: buildDir };
}

/** Compiles in the sandbox; a non-zero exit is CE, a sandbox failure is the harness's. */
export async function compileNative(
  ctx: RuntimeContext,
  argv: string[],
  buildDir: string,
  readOnly: string[] = [],
  env: Record<string, string> = {},
): Promise<CompileResult> {
  // gcc's temporary files go to the build directory: the sandbox lets compilers write nowhere else.
  const raw = await ctx.sandboxed({
    argv,
    workDir: buildDir,
    readOnly: [...readOnly, ...COMPILER_READ_ONLY],
    env: nativeCompilerEnv(buildDir, env),
  });
  // Diagnostics name files relative to the build, as a user compiling main.c would see them.
  const r = { ...raw, stderr: raw.stderr.split(`${buildDir}/`).join(''), stdout: raw.stdout.split(`${buildDir}/`).join('') };
  if (r.exitCode === 0 && r.signal === null && !r.wallTimeout) return { ok: true, diagnostics: r.stderr };
  if (r.wallTimeout) return { ok: false, diagnostics: 'compilation exceeded its time limit', timedOut: true };
  if (r.exitCode !== null && r.exitCode !== 0) return { ok: false, diagnostics: r.stderr || r.stdout };
  if (r.signal) return { ok: false, diagnostics: `${COMPILER_KILLED}${r.signal} (limits exceeded?)\n${r.stderr}`, killed: true };
  throw new HarnessError(`compiler ${argv[0]} ended without a status`);
}

/** Running a native binary built in `buildDir`. */
export function nativeRun(buildDir: string, memoryMb: number, args: string[]): RunCommand {
  return { argv: [join(buildDir, 'prog'), ...args], readOnly: [buildDir], addressSpaceMb: memoryMb + 32, processes: 16 };
}

/**
 * Assembles prompt + completion + test. The test's `main` (any form findNativeMain knows) is
 * renamed so that a wrapper `main` can run it and then print the token (argv's last
 * element) — only if it returns 0. The test sees the argv an unwrapped run would (the
 * token removed), and its body gets a final `return 0;` on the closing brace's line, which
 * the real `main` has implicitly (a renamed one falling off its end is undefined behaviour
 * and crashes at -O2). A `main` that cannot be found is called without arguments, and a
 * test without one fails to link: CE.
 */
export function nativeUnitTest(prompt: string, completion: string, test: string, header: string): string {
  const found = findNativeMain(test);
  const body = found ? `${test.slice(0, found.bodyEnd)} return 0; ${test.slice(found.bodyEnd)}` : test;
  const args = { 0: '', 2: 'argc - 1, argv', 3: 'argc - 1, argv, envp' }[found?.params ?? 0];
  return [
    `${prompt}${completion}`,
    '#define main polyeval_test_main',
    body,
    '#undef main',
    header,
    'int main(int argc, char **argv, char **envp) {',
    '  const char *polyeval_token = argv[argc - 1];',
    '  argv[argc - 1] = 0;',
    `  int status = polyeval_test_main(${args});`,
    '  if (status != 0) return status;',
    '  printf("%s\\n", polyeval_token);',
    '  return 0;',
    '}',
    '',
  ].join('\n');
}

/** Marks of running out of memory in native programs' stderr. */
export function nativeOutOfMemory(stderr: string): boolean {
  return /std::bad_alloc|Cannot allocate memory|out of memory/u.test(stderr);
}
