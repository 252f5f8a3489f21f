/**
 * C++: `g++ -O2 -std=gnu++17`, with a precompiled `bits/stdc++.h` (pch.ts) used
 * automatically when it was built with exactly these flags; without it, the same command
 * compiles from the header (slower, same result).
 *
 * Unit-test programs (MXEval's format) build with MXEval's own command instead: plain
 * `g++ <file>.cpp` (g++ 12: -O0, gnu++17). Test programs whose answers have undefined
 * behaviour (reading a string one past its end, say) pass or fail by the optimisation
 * level, and MXEval's verdicts are the reference (`polyeval agree`).
 *
 * Both link with gold when it is installed (a third of ld.bfd's CPU on these programs; the
 * same program) and compile with pe-gcc-preload.so (gcc-preload.ts) when it could be built:
 * where page faults are costly it cuts a compilation's CPU by about four, same output. The
 * compiler, assembler and linker keep their malloc heaps in huge pages (native.ts
 * COMPILER_MALLOC_ENV): a fifth less, same output.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError } from '#core/errors.ts';
import type { LanguageRuntime, RuntimeContext } from '../runtime.ts';
import { COMPILER_MALLOC_ENV, compileNative, compilerVersion, nativeOutOfMemory, nativeRun, nativeToolchain, nativeUnitTest } from './native.ts';
import { ensureGccPreload } from './gcc-preload.ts';
import { ensurePch } from './pch.ts';

const CXX = '/usr/bin/g++';
/** Flags every C++ program AND the precompiled header are built with. */
export const CPP_FLAGS = ['-O2', '-std=gnu++17', '-pipe'];
/** Flags unit-test programs (and their precompiled header) are built with: MXEval's `g++` defaults. */
export const CPP_UNIT_TEST_FLAGS = ['-O0', '-std=gnu++17', '-pipe'];

/** gold, when binutils ships it here: links these programs in a third of ld.bfd's CPU. */
export const CPP_LINK_FLAGS: readonly string[] = existsSync('/usr/bin/ld.gold') ? ['-fuse-ld=gold'] : [];

/** The compile command; `-Winvalid-pch` makes an unusable PCH visible in the diagnostics. */
export function cppCompileArgv(buildDir: string, pch: string | undefined, flags: readonly string[] = CPP_FLAGS): string[] {
  const include = pch ? ['-Winvalid-pch', '-I', pch] : [];
  return [CXX, ...flags, ...include, ...CPP_LINK_FLAGS, '-o', join(buildDir, 'prog'), join(buildDir, 'main.cpp')];
}

/** The compiler's extra environment and read-only files: pe-gcc-preload.so when there is one. */
export function cppCompileEnv(preload: string | undefined): { env: Record<string, string>; readOnly: string[] } {
  return preload ? { env: { LD_PRELOAD: preload }, readOnly: [preload] } : { env: {}, readOnly: [] };
}

/** A C++ runtime compiling with `flags`, its precompiled header built once with the same flags. */
function cppWith(flags: readonly string[], extra: Partial<LanguageRuntime> = {}): LanguageRuntime {
  let pch: Promise<{ dir: string | undefined; detail: string }> | undefined;
  let preload: Promise<{ path: string | undefined; detail: string }> | undefined;
  const setup = async (ctx: RuntimeContext) => {
    pch ??= ensurePch(ctx.cacheDir, CXX, [...flags]);
    preload ??= ensureGccPreload(ctx.cacheDir);
    const [built, lib] = await Promise.all([pch, preload]);
    if (!built.dir) pch = undefined; // retried on the next compile, as before
    if (!lib.path) preload = undefined;
    return {
      dir: built.dir,
      preload: lib.path,
      detail: `${built.detail}; ${lib.detail}; linker ${CPP_LINK_FLAGS.length ? 'gold' : 'ld'}; ${COMPILER_MALLOC_ENV.GLIBC_TUNABLES}`,
    };
  };
  return {
    id: 'cpp',
    sourceFile: 'main.cpp',
    async init(ctx) {
      await setup(ctx);
    },
    async toolchain(ctx) {
      const { detail } = await setup(ctx);
      return nativeToolchain(
        'cpp',
        CXX,
        [...flags, ...CPP_LINK_FLAGS],
        `${detail}; unit tests built with ${CPP_UNIT_TEST_FLAGS.join(' ')} (MXEval's g++ defaults)`,
      );
    },
    async cacheKey(ctx) {
      const { dir } = await setup(ctx);
      return `${CXX} ${(await compilerVersion(CXX)) ?? '?'} ${[...flags, ...CPP_LINK_FLAGS].join(' ')} pch=${dir ? 'yes' : 'no'}`;
    },
    async compile(ctx, buildDir) {
      const { dir, preload: lib } = await setup(ctx);
      const { env, readOnly } = cppCompileEnv(lib);
      return compileNative(ctx, cppCompileArgv(buildDir, dir, flags), buildDir, [...(dir ? [dir] : []), ...readOnly], env);
    },
    runCommand: nativeRun,
    unitTestProgram: (s) => nativeUnitTest(s.prompt, s.completion, s.test, '#include <cstdio>'),
    isOutOfMemory: nativeOutOfMemory,
    // The image's cache holds the headers of both flag sets (programs and unit tests) and the preload library.
    async prebuild(cacheDir) {
      const built = await ensurePch(cacheDir, CXX, [...flags]);
      if (!built.dir) throw new HarnessError(`precompiled header not built: ${built.detail}`);
      const lib = await ensureGccPreload(cacheDir);
      if (!lib.path) throw new HarnessError(lib.detail);
      return `${built.detail}; ${lib.detail}`;
    },
    ...extra,
  };
}

const unitTests = cppWith(CPP_UNIT_TEST_FLAGS);
const programs = cppWith(CPP_FLAGS);

export const cppRuntime: LanguageRuntime = {
  ...programs,
  // Both headers at once: a first unit-test run would otherwise build its header while every sample waits.
  async init(ctx) {
    await Promise.all([programs.init(ctx), unitTests.init(ctx)]);
  },
  unitTests,
  prebuild: async (cacheDir) => `${await programs.prebuild?.(cacheDir)}\n${await unitTests.prebuild?.(cacheDir)}`,
};
