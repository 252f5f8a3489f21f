// pe-gcc-preload.so and the compilers' malloc settings (COMPILER_MALLOC_ENV) may change only
// where g++'s memory comes from: with them and without them, the same sources give
// byte-identical objects, programs and diagnostics, the precompiled header is still used, and
// its copy-on-write page faults are gone.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CPP_UNIT_TEST_FLAGS, cppCompileArgv, cppCompileEnv } from '#sandbox/languages/cpp.ts';
import { ensureGccPreload, gccPreloadName } from '#sandbox/languages/gcc-preload.ts';
import { COMPILER_MALLOC_ENV } from '#sandbox/languages/native.ts';
import { ensurePch } from '#sandbox/languages/pch.ts';
import { defaultSandboxCacheDir } from '#sandbox/executor.ts';
import { ROOT } from '../support/cli.ts';
import { scratch } from './helpers.ts';

const dirs = scratch('gcc-preload');
afterAll(() => rmSync(dirs.root, { recursive: true, force: true }));

const SOURCES = {
  ok: '#include <bits/stdc++.h>\nusing namespace std;\nint main(){ map<string,int> m{{"a",1}}; vector<int> v{3,1,2}; sort(v.begin(), v.end()); cout << v[0] + m["a"] << "\\n"; }\n',
  error: '#include <bits/stdc++.h>\nusing namespace std;\nint f(vector<int> v) { return v.size() + undefined_name; }\nint main(){ return f({}); }\n',
  warning: '#include <bits/stdc++.h>\nint main(){ int unused; return 0; }\n',
};

/** Minor page faults of this process's waited-for children (/proc/self/stat cminflt): the driver's, cc1plus's and as's. */
function childFaults(): number {
  return Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ')[8]);
}

const readOrUndefined = (path: string): Buffer | undefined => {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
};

/**
 * Compiles `source` to an object with the unit-test flags, the PCH and -H, then links it as a
 * run does; with the preload and the malloc settings when a preload is given, plain without.
 */
function compile(name: string, source: string, pch: string, preload: string | undefined) {
  const build = join(dirs.root, `${name}-${preload ? 'preload' : 'plain'}`);
  mkdirSync(build, { recursive: true });
  writeFileSync(join(build, 'main.cpp'), source);
  const [cxx, ...args] = cppCompileArgv(build, pch, CPP_UNIT_TEST_FLAGS);
  const compileOnly = args.filter((a) => a !== '-fuse-ld=gold').map((a) => (a === join(build, 'prog') ? join(build, 'main.o') : a));
  const env = { PATH: '/usr/bin:/bin', LANG: 'C', ...(preload ? COMPILER_MALLOC_ENV : {}), ...cppCompileEnv(preload).env };
  const before = childFaults();
  const r = spawnSync(cxx as string, ['-H', '-Wall', '-c', ...compileOnly], { cwd: build, env, encoding: 'utf8' });
  const faults = childFaults() - before;
  const diagnostics = r.stderr.split(`${build}/`).join('');
  const object = readOrUndefined(join(build, 'main.o'));
  // The link a run does (the same driver and linker flags), from that object.
  if (object) spawnSync(cxx as string, [...args.filter((a) => a === '-fuse-ld=gold'), '-o', join(build, 'prog'), join(build, 'main.o')], { cwd: build, env });
  return { status: r.status, diagnostics, faults, object, program: readOrUndefined(join(build, 'prog')) };
}

describe('pe-gcc-preload.so', () => {
  it('compiles without a warning under -Wall -Wextra', () => {
    const file = join(ROOT, 'layers/sandbox/languages/pe-gcc-preload.c');
    const out = execFileSync('gcc', ['-Wall', '-Wextra', '-Werror', '-fsyntax-only', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(out).toBe('');
    expect(gccPreloadName()).toMatch(/^pe-gcc-preload-[0-9a-f]{12}\.so$/u);
  });

  it('leaves objects, programs and diagnostics byte-identical, the PCH still used, without its copy-on-write faults', async () => {
    // The machine's own cache (where a run keeps them): building the header again takes minutes on a busy machine.
    const built = await ensurePch(defaultSandboxCacheDir(), '/usr/bin/g++', CPP_UNIT_TEST_FLAGS);
    const lib = await ensureGccPreload(dirs.cacheDir);
    const [pch, preload] = [built.dir, lib.path];
    expect(pch, built.detail).toBeDefined();
    expect(preload, lib.detail).toBeDefined();
    for (const [name, source] of Object.entries(SOURCES)) {
      const plain = compile(name, source, pch as string, undefined);
      const fast = compile(name, source, pch as string, preload);
      expect(fast.status, name).toBe(plain.status);
      expect(fast.diagnostics, name).toBe(plain.diagnostics);
      expect(fast.object?.equals(plain.object ?? Buffer.alloc(0)) ?? plain.object === undefined, name).toBe(true);
      expect(fast.program?.equals(plain.program ?? Buffer.alloc(0)) ?? plain.program === undefined, name).toBe(true);
      if (plain.status === 0) expect(plain.program, name).toBeDefined();
      expect(plain.diagnostics, name).toMatch(/^! .*stdc\+\+\.h\.gch/mu);
      // The PCH's pages are no longer faulted in one by one (measured: ~14,000 → ~2,600).
      expect(fast.faults, name).toBeLessThan(plain.faults * 0.6);
    }
    expect(compile('error-check', SOURCES.error, pch as string, preload).diagnostics).toContain('undefined_name');
  }, 600_000);
});
