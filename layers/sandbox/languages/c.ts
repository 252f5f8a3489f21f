/** C: `gcc -O2 -std=gnu11 … -lm`, compiled in the sandbox. */
import { join } from 'node:path';
import type { LanguageRuntime } from '../runtime.ts';
import { compileNative, compilerVersion, nativeOutOfMemory, nativeRun, nativeToolchain, nativeUnitTest } from './native.ts';

const CC = '/usr/bin/gcc';
/** Flags every C program is built with (recorded in the manifest). */
export const C_FLAGS = ['-O2', '-std=gnu11', '-pipe'];

export const cRuntime: LanguageRuntime = {
  id: 'c',
  sourceFile: 'main.c',
  async init() {
    await compilerVersion(CC);
  },
  toolchain: () => nativeToolchain('c', CC, [...C_FLAGS, '-lm']),
  async cacheKey() {
    return `${CC} ${(await compilerVersion(CC)) ?? '?'} ${C_FLAGS.join(' ')} -lm`;
  },
  compile: (ctx, buildDir) => compileNative(ctx, [CC, ...C_FLAGS, '-o', join(buildDir, 'prog'), join(buildDir, 'main.c'), '-lm'], buildDir),
  runCommand: nativeRun,
  unitTestProgram: (s) => nativeUnitTest(s.prompt, s.completion, s.test, '#include <stdio.h>'),
  isOutOfMemory: nativeOutOfMemory,
};
