// What a sandboxed C/C++ compilation is given: the compilers' malloc settings, and read-only
// the kernel's huge-page setting without which glibc ignores them (inside the sandbox /sys is
// absent). A fake RuntimeContext records the spec instead of starting a process.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RuntimeContext } from '#sandbox/runtime.ts';
import type { SandboxResult } from '#sandbox/sandbox-process.ts';
import { COMPILER_MALLOC_ENV, COMPILER_READ_ONLY, compileNative } from '#sandbox/languages/native.ts';
import { CPP_UNIT_TEST_FLAGS, cppCompileArgv, cppCompileEnv } from '#sandbox/languages/cpp.ts';
import { cppFloorCompile } from '../../../sim/floor.ts';

type Spec = Parameters<RuntimeContext['sandboxed']>[0];

function recordingContext(result: Partial<SandboxResult>): { ctx: RuntimeContext; specs: Spec[] } {
  const specs: Spec[] = [];
  const ctx = {
    cacheDir: '/nonexistent',
    kotlinMode: 'warm',
    sandboxed: async (spec: Spec) => {
      specs.push(spec);
      return { exitCode: 0, signal: null, wallTimeout: false, stdout: '', stderr: '', ...result } as SandboxResult;
    },
  } as RuntimeContext;
  return { ctx, specs };
}

describe('compileNative', () => {
  it('gives the compiler the malloc settings and the huge-page setting read-only, beside its own files', async () => {
    const { ctx, specs } = recordingContext({});
    const r = await compileNative(ctx, ['/usr/bin/g++', 'main.cpp'], '/build/x', ['/cache/pch'], { LD_PRELOAD: '/cache/p.so' });
    expect(r.ok).toBe(true);
    const spec = specs[0] as Spec;
    expect(spec.env).toMatchObject({ ...COMPILER_MALLOC_ENV, LD_PRELOAD: '/cache/p.so', TMPDIR: '/build/x', PATH: '/usr/bin:/bin' });
    expect(spec.env?.GLIBC_TUNABLES).toMatch(/glibc\.malloc\.hugetlb=1/u);
    expect(spec.readOnly).toEqual(['/cache/pch', ...COMPILER_READ_ONLY]);
    expect(COMPILER_READ_ONLY).toEqual(existsSync('/sys/kernel/mm/transparent_hugepage') ? ['/sys/kernel/mm/transparent_hugepage'] : []);
  });

  it('reports a failing compiler as CE with its diagnostics, relative to the build', async () => {
    const { ctx } = recordingContext({ exitCode: 1, stderr: '/build/x/main.cpp:1:1: error: boom\n' });
    const r = await compileNative(ctx, ['/usr/bin/g++', 'main.cpp'], '/build/x');
    expect(r).toMatchObject({ ok: false, diagnostics: 'main.cpp:1:1: error: boom\n' });
  });
});

describe("the bench's C++ floor", () => {
  it('compiles with the environment a sandboxed compilation gets (preload, malloc settings), not a bare g++', async () => {
    const { ctx, specs } = recordingContext({});
    const { env: preloadEnv, readOnly } = cppCompileEnv('/cache/p.so');
    await compileNative(ctx, cppCompileArgv('/floor/cpp-0', '/cache/pch', CPP_UNIT_TEST_FLAGS), '/floor/cpp-0', readOnly, preloadEnv);
    const floor = cppFloorCompile('/floor/cpp-0', '/cache/builds/abc/main.cpp', '/cache/pch', '/cache/p.so');
    expect(floor.env).toEqual(specs[0]?.env);
    expect(floor.env).toMatchObject({ ...COMPILER_MALLOC_ENV, LD_PRELOAD: '/cache/p.so' });
    // The run's own command, reading the sample's source from the compile cache.
    expect(floor.argv).toEqual(specs[0]?.argv.map((a) => (a === '/floor/cpp-0/main.cpp' ? '/cache/builds/abc/main.cpp' : a)));
    expect(floor.argv).toContain('/cache/builds/abc/main.cpp');
  });
});
