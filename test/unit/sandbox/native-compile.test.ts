// What a sandboxed C/C++ compilation is given: the compilers' malloc settings, and read-only
// the kernel's huge-page setting without which glibc ignores them (inside the sandbox /sys is
// absent). A fake RuntimeContext records the spec instead of starting a process.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RuntimeContext } from '#sandbox/runtime.ts';
import type { SandboxResult } from '#sandbox/sandbox-process.ts';
import { COMPILER_MALLOC_ENV, COMPILER_READ_ONLY, compileNative } from '#sandbox/languages/native.ts';
import { CPP_UNIT_TEST_FLAGS, cppCompileArgv, cppCompileEnv } from '#sandbox/languages/cpp.ts';
import { cppFloorCompile, cppFloorReason, mxevalCppCompile, nativeFloorRun, type Floor } from '../../../sim/floor.ts';
import { UNIT_TEST_LIMITS } from '#core/judging/unit-tests-judge.ts';

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

describe("the bench's C++ floor beside MXEval", () => {
  // amazon-science/mxeval mxeval/execution.py (commit e09974f), check_correctness_cpp: compile_command_lambda
  // gives ["g++", "<name>.cpp", "-o", "<name>_cpp"] and check_correctness_helper runs it with cwd=True (the file's directory).
  it("times MXEval's own compile command: plain g++ on the file in its directory, no precompiled header", () => {
    expect(mxevalCppCompile('/floor/mx-0')).toEqual({ argv: ['g++', 'main.cpp', '-o', 'main_cpp'], cwd: '/floor/mx-0' });
  });

  const parts = { headerCpuMs: 220, peerCompileCpuMs: 1100, peerCompiles: 3, longestS: 10.3 };
  const floor = (cpuS: number, longestS = parts.longestS): Pick<Floor, 'cpuS' | 'samples' | 'cpp'> => ({ cpuS, samples: 89, cpp: { ...parts, longestS } });

  // Figures of the shape a loaded machine gives (issue 35's bench run, 2026-12-06): MXEval 162.72 CPU-s, its wall stretched.
  const mx = { wallS: 52.2, cpuS: 162.72 };

  it('says by CPU whether the target is beyond the floor: the floor alone over MXEval CPU ÷ target', () => {
    expect(cppFloorReason(floor(37.8), mx, 5, 2)).toMatch(
      /^by CPU 5x lies beyond the floor: 5x MXEval's 162\.72 CPU-s needs at most 32\.54, the floor alone takes 37\.80 \(at most 4\.3x\)/u,
    );
    expect(cppFloorReason(floor(30), mx, 5, 2)).toMatch(
      /^by CPU 5x is within the floor: it needs at most 32\.54 CPU-s, the floor takes 30\.00 \(up to 5\.4x\)/u,
    );
  });

  it('says by wall whether any schedule of the floor ends in MXEval ÷ target, and what bounds it', () => {
    const why = cppFloorReason(floor(30), mx, 5, 2);
    expect(why).toContain(
      'by wall 5x lies beyond the floor: no schedule of its work ends in 10.44 s (the floor allows at most 3.5x, bound by its CPU ÷ 2 cores',
    );
    expect(why).toContain('337 CPU-ms per sample (runs included), of which 220 an empty #include <bits/stdc++.h> program costs');
    expect(why).toContain("MXEval's own compile (g++ <name>.cpp, no precompiled header) 1100 CPU-ms per sample (3 timed)");
  });

  it('names the longest sample when it, not the CPU, bounds every schedule', () => {
    expect(cppFloorReason(floor(12, 10.6), mx, 5, 2)).toContain(
      'by wall 5x lies beyond the floor: no schedule of its work ends in 10.44 s (the floor allows at most 4.9x, bound by its longest sample',
    );
  });

  it('says the target is within the floor by wall when both bounds allow it', () => {
    expect(cppFloorReason(floor(16, 7), mx, 5, 2)).toContain('by wall 5x is within the floor (10.44 s needed)');
  });

  it('says nothing for a floor without the C++ parts', () => {
    expect(cppFloorReason({ cpuS: 3, samples: 10 }, mx, 5, 2)).toBe('');
  });
});

describe("the bench's native floor run", () => {
  it("runs the program under the run's CPU limit (RLIMIT_CPU), with the run's wall limit as the backstop", () => {
    const dir = mkdtempSync(join(tmpdir(), 'pe-floor-run-'));
    try {
      // A stand-in program that prints the CPU limit it was given and its last argument (the token).
      const prog = join(dir, 'prog');
      writeFileSync(prog, '#!/bin/sh\nulimit -t\necho "$1"\n');
      chmodSync(prog, 0o755);
      const run = nativeFloorRun(prog, 'tok-1', '/usr/bin/prlimit', 1);
      expect(run.timeoutMs).toBe(UNIT_TEST_LIMITS.wallMs);
      expect(execFileSync(run.file, run.args, { encoding: 'utf8' })).toBe(`${UNIT_TEST_LIMITS.cpuMs / 1000}\ntok-1\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // A run's wall limit grows with the load (layers/sandbox/program-host.ts: wallMs × loadScale()); the floor's
  // backstop must too, or on a loaded machine it stops a never-ending program long before its 10 CPU-s.
  it("stretches the wall backstop by the load as a run's wall limit is stretched", () => {
    expect(nativeFloorRun('/b/prog', 'tok', '/usr/bin/prlimit', 4).timeoutMs).toBe(UNIT_TEST_LIMITS.wallMs * 4);
  });

  it('without prlimit, stops the program at the CPU limit in wall time instead', () => {
    expect(nativeFloorRun('/b/prog', 'tok', null)).toEqual({ file: '/b/prog', args: ['tok'], timeoutMs: UNIT_TEST_LIMITS.cpuMs });
  });
});
