// Issue 35: Lambda gives CPU in proportion to memory (one vCPU at 1,769 MB), so the simulated
// runner's durations depend on its memory: CPU-bound work takes 1,769 / memory times longer below
// one vCPU and no less above it (a smaller runner is not a free saving), and a busy-loop TLE ends
// at its CPU limit — cpuMs / share of wall time — capped by the sandbox's wall net, on every path.
import { describe, expect, it } from 'vitest';
import {
  busyLoopTle,
  CPU_FACTOR,
  cpuBoundMs,
  cpuShare,
  PROFILES,
  runnerStartMs,
  runProgram,
  sandboxWallMs,
  verdictSafeShare,
} from '../../../sim/cloud/sim-model.ts';
import { jvmRunCommand } from '#sandbox/languages/jvm.ts';
import { benchProgram } from '../../../sim/rocode-generator.ts';
import { KOTLIN_COMPLETIONS } from '../../../sim/cloud/kotlin-tasks.ts';
import { wallLimitFor } from '#core/judging/io-tests-judge.ts';
import { UNIT_TEST_LIMITS } from '#core/judging/unit-tests-judge.ts';
import { runnerRequest, type RunnerResponse } from '#app/cloud/runner-protocol.ts';

const half = () => 0.5; // the ±20 % spread at its middle: × 1
const limits = { cpuMs: 2_000, wallMs: wallLimitFor(2_000), memoryMb: 256 };

// The judge's request, built as the judge builds it (runner-protocol.ts runnerRequest).
function pythonRequest(kind: 'OK' | 'TLE') {
  return JSON.stringify(
    runnerRequest({ kind: 'source', language: 'python', code: benchProgram('python', kind) }, [{ stdin: `60 ${'1 '.repeat(60)}`, limits }], 65_536),
  );
}

function kotlinRequest(kind: 'OK' | 'TLE') {
  const source = { language: 'kotlin', prompt: 'fun f(xs: List<Int>): Int {\n', completion: KOTLIN_COMPLETIONS[kind], test: '', entryPoint: 'f' };
  return JSON.stringify(runnerRequest({ kind: 'unit-test', source }, [{ stdin: '', args: ['tok'], limits: UNIT_TEST_LIMITS }], 65_536));
}

describe('a function’s CPU share', () => {
  it('is memory / 1,769 below one vCPU and one core above it (a thread runs on one vCPU)', () => {
    expect(cpuShare(1769)).toBe(1);
    expect(cpuShare(884.5)).toBe(0.5);
    expect(cpuShare(4096)).toBe(1);
    expect(() => cpuShare(0)).toThrow(/memoryMb must be positive/);
  });

  it('stretches single-threaded work below one vCPU, and does not shrink it above', () => {
    expect(cpuBoundMs(1_000, 884.5)).toBe(2_000);
    expect(cpuBoundMs(1_000, 1769)).toBe(1_000);
    expect(cpuBoundMs(1_000, 4096)).toBe(1_000);
    // Work that keeps 1.7 cores busy runs on min(1.7, vCPUs) of them.
    expect(cpuBoundMs(1_700, 4096, 1.7)).toBeCloseTo(1_000);
    expect(cpuBoundMs(1_700, 1769, 1.7)).toBeCloseTo(1_700);
  });

  it('makes CPU-bound GB-seconds flat below one vCPU and grow above it', () => {
    const gbS = (memoryMb: number) => (cpuBoundMs(1_000, memoryMb) / 1000) * (memoryMb / 1024);
    expect(gbS(512)).toBeCloseTo(gbS(1769), 6);
    expect(gbS(4096) / gbS(2048)).toBeCloseTo(2, 6);
  });

  it('slows the Kotlin compile server’s start below the 1.7 cores it keeps busy', () => {
    expect(runnerStartMs('kotlin', 4096)).toBe(PROFILES.kotlin.firstCompileExtraMs);
    expect(runnerStartMs('kotlin', 1769)).toBe(Math.round(PROFILES.kotlin.firstCompileExtraMs * 1.7));
    expect(runnerStartMs('python', 512)).toBe(0);
  });
});

describe('the simulated runner’s durations depend on its memory', () => {
  it('a Python program takes twice as long at half a vCPU, no less at 4 GB', () => {
    const at = (memoryMb: number) => runProgram(pythonRequest('OK'), half, memoryMb).durationMs;
    expect(at(884.5)).toBeCloseTo(2 * at(1769), 6);
    expect(at(4096)).toBeCloseTo(at(1769), 6);
    expect(at(1769)).toBeCloseTo(PROFILES.python.compileMs + PROFILES.python.testMs, 6);
  });

  it('a Kotlin compile and run take twice as long at half a vCPU, no less at 4 GB', () => {
    const at = (memoryMb: number) => runProgram(kotlinRequest('OK'), half, memoryMb).durationMs;
    expect(at(884.5)).toBeCloseTo(2 * at(1769), -1);
    expect(at(4096)).toBe(at(1769));
  });
});

describe('a busy-loop TLE: one rule on every path', () => {
  it('ends at its CPU limit on one vCPU, Python and Kotlin alike (not at the wall net)', () => {
    const python = runProgram(pythonRequest('TLE'), half, 1769);
    const pyRun = (JSON.parse(python.payload) as Extract<RunnerResponse, { ok: true }>).runs[0];
    expect(pyRun).toMatchObject({ termination: 'time', runMs: limits.cpuMs, cpuMs: limits.cpuMs });
    expect(python.durationMs).toBeCloseTo(PROFILES.python.compileMs + limits.cpuMs, 6);
    const kotlin = runProgram(kotlinRequest('TLE'), half, 1769);
    const ktRun = (JSON.parse(kotlin.payload) as Extract<RunnerResponse, { ok: true }>).runs[0];
    // A JVM program's CPU limit is twice its cpuMs (program-host.ts × jvm.ts's cpuFactor 2): the
    // busy loop spins 20 s of CPU before RLIMIT_CPU ends it, inside the 22 s net.
    expect(ktRun).toMatchObject({ termination: 'time', runMs: 2 * UNIT_TEST_LIMITS.cpuMs, cpuMs: 2 * UNIT_TEST_LIMITS.cpuMs });
    expect(2 * UNIT_TEST_LIMITS.cpuMs).toBeLessThan(sandboxWallMs(UNIT_TEST_LIMITS, CPU_FACTOR.kotlin));
  });

  it('uses the sandbox’s own CPU factors and RLIMIT_CPU’s whole seconds', () => {
    const jvm = jvmRunCommand({ classPath: ['/x'], mainClass: 'M', memoryMb: 512, args: [], readOnly: [] });
    expect(CPU_FACTOR.kotlin).toBe(jvm.cpuFactor);
    // RLIMIT_CPU is set in whole seconds, rounded up (pe-supervisor.c, python-zygote.py).
    expect(busyLoopTle({ cpuMs: 1_500, wallMs: wallLimitFor(1_500) }, 1769)).toEqual({ wallMs: 2_000, cpuMs: 2_000 });
  });

  it('takes cpuMs / share of wall time at a fractional vCPU, capped by the sandbox’s wall net', () => {
    expect(busyLoopTle(limits, 1769 * 0.8)).toEqual({ wallMs: 2_500, cpuMs: 2_000 });
    // At a tenth of a vCPU the wall net (max(wallMs, cpuMs + 1000) = 6,000 ms) fires first.
    expect(busyLoopTle(limits, 176.9)).toEqual({ wallMs: sandboxWallMs(limits), cpuMs: 600 });
  });

  it('keeps every CPU-clock verdict at half a vCPU, and a wall-clock one only at a full vCPU', () => {
    for (const cpuMs of [100, 1_000, 10_000, 60_000]) expect(verdictSafeShare({ cpuMs, wallMs: wallLimitFor(cpuMs) })).toBeLessThanOrEqual(0.5);
    // A JVM program's doubled CPU limit (20 s) inside its 22 s net: Kotlin's runner needs 0.91 of a vCPU.
    expect(verdictSafeShare(UNIT_TEST_LIMITS, CPU_FACTOR.kotlin)).toBeGreaterThan(0.9);
    // A wall-clock task: wallMs = cpuMs, the net cpuMs + 1000.
    expect(verdictSafeShare({ cpuMs: 10_000, wallMs: 10_000 })).toBeGreaterThan(0.9);
  });
});
