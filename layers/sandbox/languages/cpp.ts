/**
 * C++: `g++ -O2 -std=gnu++17`, with a precompiled `bits/stdc++.h` (pch.ts) used
 * automatically when it was built with exactly these flags; without it, the same command
 * compiles from the header (slower, same result).
 *
 * Unit-test programs (MXEval's format) build with MXEval's own command instead: plain
 * `g++ <file>.cpp` (g++ 12: -O0, gnu++17). Test programs whose answers have undefined
 * behaviour (reading a string one past its end, say) pass or fail by the optimisation
 * level, and MXEval's verdicts are the reference (`polyeval agree`).
 */
import { join } from 'node:path';
import { HarnessError } from '#core/errors.ts';
import type { LanguageRuntime, RuntimeContext } from '../runtime.ts';
import { compileNative, compilerVersion, nativeOutOfMemory, nativeRun, nativeToolchain, nativeUnitTest } from './native.ts';
import { ensurePch } from './pch.ts';

const CXX = '/usr/bin/g++';
/** Flags every C++ program AND the precompiled header are built with. */
export const CPP_FLAGS = ['-O2', '-std=gnu++17', '-pipe'];
/** Flags unit-test programs (and their precompiled header) are built with: MXEval's `g++` defaults. */
export const CPP_UNIT_TEST_FLAGS = ['-O0', '-std=gnu++17', '-pipe'];

/** The compile command; `-Winvalid-pch` makes an unusable PCH visible in the diagnostics. */
export function cppCompileArgv(buildDir: string, pch: string | undefined, flags: readonly string[] = CPP_FLAGS): string[] {
  const include = pch ? ['-Winvalid-pch', '-I', pch] : [];
  return [CXX, ...flags, ...include, '-o', join(buildDir, 'prog'), join(buildDir, 'main.cpp')];
}

/** A C++ runtime compiling with `flags`, its precompiled header built once with the same flags. */
function cppWith(flags: readonly string[], extra: Partial<LanguageRuntime> = {}): LanguageRuntime {
  let pch: Promise<{ dir: string | undefined; detail: string }> | undefined;
  const setup = async (ctx: RuntimeContext) => {
    pch ??= ensurePch(ctx.cacheDir, CXX, [...flags]);
    const built = await pch;
    if (!built.dir) pch = undefined; // retried on the next compile, as before
    return built;
  };
  return {
    id: 'cpp',
    sourceFile: 'main.cpp',
    async init(ctx) {
      await setup(ctx);
    },
    async toolchain(ctx) {
      const { detail } = await setup(ctx);
      return nativeToolchain('cpp', CXX, [...flags], `${detail}; unit tests built with ${CPP_UNIT_TEST_FLAGS.join(' ')} (MXEval's g++ defaults)`);
    },
    async cacheKey(ctx) {
      const { dir } = await setup(ctx);
      return `${CXX} ${(await compilerVersion(CXX)) ?? '?'} ${flags.join(' ')} pch=${dir ? 'yes' : 'no'}`;
    },
    async compile(ctx, buildDir) {
      const { dir } = await setup(ctx);
      return compileNative(ctx, cppCompileArgv(buildDir, dir, flags), buildDir, dir ? [dir] : []);
    },
    runCommand: nativeRun,
    unitTestProgram: (s) => nativeUnitTest(s.prompt, s.completion, s.test, '#include <cstdio>'),
    isOutOfMemory: nativeOutOfMemory,
    // The image's cache holds the headers of both flag sets (programs and unit tests).
    async prebuild(cacheDir) {
      const built = await ensurePch(cacheDir, CXX, [...flags]);
      if (!built.dir) throw new HarnessError(`precompiled header not built: ${built.detail}`);
      return built.detail;
    },
    ...extra,
  };
}

const unitTests = cppWith(CPP_UNIT_TEST_FLAGS);
const programs = cppWith(CPP_FLAGS);

export const cppRuntime: LanguageRuntime = {
  ...programs,
  unitTests,
  prebuild: async (cacheDir) => `${await programs.prebuild?.(cacheDir)}\n${await unitTests.prebuild?.(cacheDir)}`,
};
