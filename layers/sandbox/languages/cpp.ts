/**
 * C++: `g++ -O2 -std=gnu++17`, with a precompiled `bits/stdc++.h` (pch.ts) used
 * automatically when it was built with exactly these flags; without it, the same command
 * compiles from the header (slower, same result).
 */
import { join } from 'node:path';
import type { LanguageRuntime, RuntimeContext } from '../runtime.ts';
import { compileNative, compilerVersion, nativeOutOfMemory, nativeRun, nativeToolchain, nativeUnitTest } from './native.ts';
import { ensurePch } from './pch.ts';

const CXX = '/usr/bin/g++';
/** Flags every C++ program AND the precompiled header are built with. */
export const CPP_FLAGS = ['-O2', '-std=gnu++17', '-pipe'];

let pchDir: string | undefined;
let pchDetail = 'precompiled header not built yet';

async function setup(ctx: RuntimeContext): Promise<void> {
  if (pchDir) return;
  const r = await ensurePch(ctx.cacheDir, CXX, CPP_FLAGS);
  pchDir = r.dir;
  pchDetail = r.detail;
}

/** The compile command; `-Winvalid-pch` makes an unusable PCH visible in the diagnostics. */
export function cppCompileArgv(buildDir: string, pch: string | undefined): string[] {
  const include = pch ? ['-Winvalid-pch', '-I', pch] : [];
  return [CXX, ...CPP_FLAGS, ...include, '-o', join(buildDir, 'prog'), join(buildDir, 'main.cpp')];
}

export const cppRuntime: LanguageRuntime = {
  id: 'cpp',
  sourceFile: 'main.cpp',
  init: setup,
  async toolchain(ctx) {
    await setup(ctx);
    return nativeToolchain('cpp', CXX, CPP_FLAGS, pchDetail);
  },
  async cacheKey(ctx) {
    await setup(ctx);
    return `${CXX} ${(await compilerVersion(CXX)) ?? '?'} ${CPP_FLAGS.join(' ')} pch=${pchDir ? 'yes' : 'no'}`;
  },
  async compile(ctx, buildDir) {
    await setup(ctx);
    return compileNative(ctx, cppCompileArgv(buildDir, pchDir), buildDir, pchDir ? [pchDir] : []);
  },
  runCommand: nativeRun,
  unitTestProgram: (s) => nativeUnitTest(s.prompt, s.completion, s.test, '#include <cstdio>'),
  isOutOfMemory: nativeOutOfMemory,
};
