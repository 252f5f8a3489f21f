/**
 * The floor of a unit-test run: the same samples' bare toolchain work, measured on this
 * machine in the same bench run, with none of polyeval around it — no CLI, no sandbox, no
 * records. The programs are the ones the run assembled (read back from its compile cache),
 * built and run `jobs` at a time as the run did:
 * - Python: `python3 -I -B main.py <token>` per sample (one interpreter start plus the program);
 * - C++: the run's own g++ command (MXEval's flags, the precompiled header) with the run's own compiler
 *   environment (pe-gcc-preload.so, the malloc settings), and the program with an empty environment;
 * - Kotlin: a compilation by an already warm compile server, then `java … PolyevalEntry <token>`
 *   from the run's class-data archive when it has one (the server's start-up is reported on its own).
 * No polyeval run can be faster than its floor on the same machine.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { childrenCpuS } from './measure-run.ts';
import { cppCompileArgv, cppCompileEnv, CPP_UNIT_TEST_FLAGS } from '../layers/sandbox/languages/cpp.ts';
import { ensureGccPreload } from '../layers/sandbox/languages/gcc-preload.ts';
import { JVM_RUN_FLAGS, jdkTool } from '../layers/sandbox/languages/jvm.ts';
import { archivePath, verifiedArchive } from '../layers/sandbox/languages/kotlin-cds.ts';
import { createKotlinCompiler } from '../layers/sandbox/languages/kotlin-compiler.ts';
import { nativeCompilerEnv } from '../layers/sandbox/languages/native.ts';
import { ensurePch } from '../layers/sandbox/languages/pch.ts';
import { loadScale } from '../layers/sandbox/load.ts';
import { pythonRuntime } from '../layers/sandbox/languages/python.ts';
import type { RuntimeContext } from '../layers/sandbox/runtime.ts';
import { UNIT_TEST_LIMITS } from '../layers/core/judging/unit-tests-judge.ts';

const exec = promisify(execFile);
const TOKEN = 'polyeval-floor-token';

/** What the floor measured: wall time of the whole set, and each sample's compile and run times. */
export interface Floor {
  wallS: number;
  /** CPU seconds of the floor's processes (the compile server's included). */
  cpuS: number;
  compileMs: number[];
  runMs: number[];
  /** Set-up paid once (the Kotlin compile server's start), not in `wallS`. */
  setupS: number;
  /** Python: CPU milliseconds of one bare interpreter start (`python3 -I -B -c pass`, mean of 20), what most of the floor is. */
  startCpuMs?: number;
  /** How many programs the floor ran (every sample's, those that do not parse included: MXEval `exec`s them too). */
  samples: number;
  /** C++: why the floor is where it is, measured in the same bench run (cppFloorParts). */
  cpp?: CppFloorParts;
}

/**
 * What bounds a C++ run from below, measured beside the floor in the same bench run:
 * - `headerCpuMs`: the run's own compile command on an empty `#include <bits/stdc++.h>` +
 *   `int main(){}` (mean CPU-ms): what every sample pays whatever its code — g++ performs the
 *   header's pending template instantiations at the end of every translation unit, after the
 *   precompiled header was written, so no PCH holds them;
 * - `peerCompileCpuMs`: MXEval's own compile command on the first samples (mean CPU-ms):
 *   `g++ <name>.cpp -o <name>_cpp`, no precompiled header (amazon-science/mxeval
 *   mxeval/execution.py check_correctness_cpp, commit e09974f);
 * - `longestS`: the longest single sample of the floor, compile + run (wall): no schedule on
 *   any number of cores ends before it (a program that never ends runs to the 10 s limit).
 */
export interface CppFloorParts {
  headerCpuMs: number;
  peerCompileCpuMs: number;
  peerCompiles: number;
  longestS: number;
}

/** The run's assembled programs: every build directory holding `file`. */
function builds(cacheDir: string, file: string): string[] {
  const root = join(cacheDir, 'builds');
  return readdirSync(root)
    .map((d) => join(root, d))
    .filter((d) => existsSync(join(d, file)));
}

/** Runs `work` over `items`, `jobs` at a time; resolves with the wall seconds. */
export async function timed<T>(items: T[], jobs: number, work: (item: T, index: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      for (let i = next++; i < items.length; i = next++) await work(items[i] as T, i);
    }),
  );
  return (performance.now() - t0) / 1000;
}

/** Runs a command, ignoring its exit status (failing samples are part of the work). */
async function ms(file: string, args: string[], cwd: string, env?: Record<string, string>, timeoutMs = 60_000): Promise<number> {
  const t0 = performance.now();
  await exec(file, args, { cwd, maxBuffer: 64 * 1024 * 1024, timeout: timeoutMs, ...(env ? { env } : {}) }).catch(() => undefined);
  return performance.now() - t0;
}

export async function pythonFloor(cacheDir: string, scratch: string, jobs: number): Promise<Floor> {
  const info = await pythonRuntime.toolchain({} as RuntimeContext, {});
  const python = info.compiler ?? 'python3';
  const dirs = builds(cacheDir, 'main.py');
  const runMs: number[] = [];
  const cpu0 = childrenCpuS();
  mkdirSync(scratch, { recursive: true });
  const wallS = await timed(dirs, jobs, async (dir) => {
    runMs.push(await ms(python, ['-I', '-B', join(dir, 'main.py'), TOKEN], scratch));
  });
  const cpuS = childrenCpuS() - cpu0;
  const start0 = childrenCpuS();
  for (let i = 0; i < 20; i++) await ms(python, ['-I', '-B', '-c', 'pass'], scratch);
  const startCpuMs = ((childrenCpuS() - start0) / 20) * 1000;
  return { wallS, cpuS, compileMs: [], runMs, setupS: 0, startCpuMs, samples: dirs.length };
}

/**
 * The C++ floor's compile of `source` into `out`: the run's own command (MXEval's flags, the
 * precompiled header) with the run's own compiler environment — pe-gcc-preload.so and the
 * compilers' malloc settings (native.ts nativeCompilerEnv) — so the floor is what the same
 * compiler costs here without polyeval around it, not a slower bare `g++`.
 */
export function cppFloorCompile(
  out: string,
  source: string,
  pch: string | undefined,
  preload: string | undefined,
): { argv: string[]; env: Record<string, string> } {
  const argv = cppCompileArgv(out, pch, CPP_UNIT_TEST_FLAGS).map((a) => (a === join(out, 'main.cpp') ? source : a));
  return { argv, env: nativeCompilerEnv(out, cppCompileEnv(preload).env) };
}

/**
 * MXEval's own C++ compile command, as its `check_correctness_cpp` runs it (amazon-science/mxeval,
 * mxeval/execution.py, commit e09974f: `compile_command_lambda` with `cwd=True`): `g++ <name>.cpp
 * -o <name>_cpp` in the program's directory — g++'s defaults, no precompiled header, ld.bfd — in
 * MXEval's environment (the bench's own, which it passes on).
 */
export function mxevalCppCompile(dir: string): { argv: string[]; cwd: string } {
  return { argv: ['g++', 'main.cpp', '-o', 'main_cpp'], cwd: dir };
}

/** Mean CPU-ms of `times` runs of a command, one at a time. */
async function cpuMsOf(times: number, file: string, args: string[], cwd: string, env?: Record<string, string>): Promise<number> {
  const cpu0 = childrenCpuS();
  for (let i = 0; i < times; i++) await ms(file, args, cwd, env);
  return ((childrenCpuS() - cpu0) / times) * 1000;
}

const PRLIMIT = '/usr/bin/prlimit';

/**
 * How the floor runs a native program: under the run's own limits (UNIT_TEST_LIMITS) — its CPU
 * limit as RLIMIT_CPU (util-linux `prlimit`, when installed) and its wall limit, stretched by the
 * load as a run stretches it (layers/sandbox/program-host.ts, `loadScale()`), as the backstop —
 * so a program that never ends costs the floor the CPU it costs a run (10 CPU-s), not less on a
 * loaded machine where the idle wall limit buys a fraction of that.
 */
export function nativeFloorRun(
  prog: string,
  token: string,
  prlimit: string | null = existsSync(PRLIMIT) ? PRLIMIT : null,
  scale: number = loadScale(),
): { file: string; args: string[]; timeoutMs: number } {
  const cpuS = Math.ceil(UNIT_TEST_LIMITS.cpuMs / 1000);
  return prlimit
    ? { file: prlimit, args: [`--cpu=${cpuS}`, '--', prog, token], timeoutMs: Math.round(UNIT_TEST_LIMITS.wallMs * scale) }
    : { file: prog, args: [token], timeoutMs: UNIT_TEST_LIMITS.cpuMs };
}

/** How many samples MXEval's own compile command is timed on (each costs it about a CPU-second). */
const PEER_COMPILES = 3;

export async function cppFloor(cacheDir: string, scratch: string, jobs: number): Promise<Floor> {
  const [pch, preload] = await Promise.all([ensurePch(cacheDir, '/usr/bin/g++', [...CPP_UNIT_TEST_FLAGS]), ensureGccPreload(cacheDir)]);
  const dirs = builds(cacheDir, 'main.cpp');
  const compileMs: number[] = [];
  const runMs: number[] = [];
  let longestMs = 0;
  const cpu0 = childrenCpuS();
  const wallS = await timed(dirs, jobs, async (dir, i) => {
    const out = join(scratch, `cpp-${i}`);
    mkdirSync(out, { recursive: true });
    const { argv, env } = cppFloorCompile(out, join(dir, 'main.cpp'), pch.dir, preload.path);
    const compiled = await ms(argv[0] as string, argv.slice(1), out, env);
    compileMs.push(compiled);
    // The program as the sandbox starts it (an empty environment, never the compiler's), stopped
    // at the run's limits: a program that never ends costs the floor what it costs the run, not 60 s.
    const run = nativeFloorRun(join(out, 'prog'), TOKEN);
    const ran = existsSync(join(out, 'prog')) ? await ms(run.file, run.args, out, {}, run.timeoutMs) : 0;
    if (ran) runMs.push(ran);
    longestMs = Math.max(longestMs, compiled + ran);
  });
  const cpuS = childrenCpuS() - cpu0;
  // Beside the floor, untimed in it: the header's share of a compile, and MXEval's own compile command.
  const header = join(scratch, 'cpp-header');
  mkdirSync(header, { recursive: true });
  writeFileSync(join(header, 'main.cpp'), '#include <bits/stdc++.h>\nint main() {}\n');
  const empty = cppFloorCompile(header, join(header, 'main.cpp'), pch.dir, preload.path);
  const headerCpuMs = await cpuMsOf(3, empty.argv[0] as string, empty.argv.slice(1), header, empty.env);
  const peer = dirs.slice(0, PEER_COMPILES);
  let peerCpuS = 0;
  for (const [i, dir] of peer.entries()) {
    const out = join(scratch, `cpp-mxeval-${i}`);
    mkdirSync(out, { recursive: true });
    copyFileSync(join(dir, 'main.cpp'), join(out, 'main.cpp'));
    const { argv, cwd } = mxevalCppCompile(out);
    peerCpuS += (await cpuMsOf(1, argv[0] as string, argv.slice(1), cwd)) / 1000;
  }
  const cpp = {
    headerCpuMs,
    peerCompileCpuMs: peer.length ? (peerCpuS / peer.length) * 1000 : Number.NaN,
    peerCompiles: peer.length,
    longestS: longestMs / 1000,
  };
  return { wallS, cpuS, compileMs, runMs, setupS: 0, samples: dirs.length, cpp };
}

/**
 * Why C++ stops short of `target`× MXEval (or does not), from the floor's parts measured in
 * the same bench run. By CPU first, which the load hardly moves: `target`× MXEval's CPU needs
 * the floor's CPU at most MXEval's ÷ `target`. Then the wall: the time the target needs against
 * the floor's CPU ÷ cores and its longest sample (the two lower bounds of any schedule; on a
 * loaded machine MXEval's wall stretches with its neighbours, so this half says little there).
 * Then the per-sample compile, the header's share of it, and MXEval's own compile beside it.
 */
export function cppFloorReason(f: Pick<Floor, 'cpuS' | 'samples' | 'cpp'>, mxeval: { wallS: number; cpuS: number }, target: number, cores: number): string {
  const parts = f.cpp;
  if (!parts || f.samples === 0) return '';
  const needCpuS = mxeval.cpuS / target;
  const byCpu =
    f.cpuS > needCpuS
      ? `by CPU ${target}x lies beyond the floor: ${target}x MXEval's ${mxeval.cpuS.toFixed(2)} CPU-s needs at most ${needCpuS.toFixed(2)}, the floor alone takes ${f.cpuS.toFixed(2)} (at most ${(mxeval.cpuS / f.cpuS).toFixed(1)}x)`
      : `by CPU ${target}x is within the floor: it needs at most ${needCpuS.toFixed(2)} CPU-s, the floor takes ${f.cpuS.toFixed(2)} (up to ${(mxeval.cpuS / f.cpuS).toFixed(1)}x)`;
  const needS = mxeval.wallS / target;
  const boundS = Math.max(f.cpuS / cores, parts.longestS);
  const perSampleMs = (f.cpuS / f.samples) * 1000;
  const which = f.cpuS / cores >= parts.longestS ? `its CPU ÷ ${cores} cores` : 'its longest sample';
  const byWall =
    boundS > needS
      ? `by wall ${target}x lies beyond the floor: no schedule of its work ends in ${needS.toFixed(2)} s`
      : `by wall ${target}x is within the floor (${needS.toFixed(2)} s needed)`;
  return [
    byCpu,
    `${byWall} (the floor allows at most ${(mxeval.wallS / boundS).toFixed(1)}x, bound by ${which}: CPU ${f.cpuS.toFixed(2)} s ÷ ${cores} = ${(f.cpuS / cores).toFixed(2)} s, longest sample ${parts.longestS.toFixed(2)} s — compile + run, a never-ending program stopped at the run's 10 CPU-s limit)`,
    `${perSampleMs.toFixed(0)} CPU-ms per sample (runs included), of which ${parts.headerCpuMs.toFixed(0)} an empty #include <bits/stdc++.h> program costs the same command too (g++'s end-of-unit template instantiations, which no precompiled header holds)`,
    `MXEval's own compile (g++ <name>.cpp, no precompiled header) ${parts.peerCompileCpuMs.toFixed(0)} CPU-ms per sample (${parts.peerCompiles} timed)`,
  ].join('; ');
}

/** `flags`: the run's kotlinc flags (its language version). */
export async function kotlinFloor(cacheDir: string, scratch: string, jobs: number, flags: string[]): Promise<Floor> {
  const cpu0 = childrenCpuS();
  const compiler = createKotlinCompiler({ mode: 'warm', maxInFlight: jobs });
  const t0 = performance.now();
  await compiler.warmUp();
  const setupS = (performance.now() - t0) / 1000;
  const dirs = builds(cacheDir, 'Main.kt');
  const compileMs: number[] = [];
  const runMs: number[] = [];
  // Programs start from the run's class-data archive when it has one (kotlin-cds.ts), the stdlib it was dumped for first.
  const copy = readdirSync(cacheDir).find((name) => /^kotlin-stdlib-[0-9a-f]{16}\.jar$/u.test(name));
  const archive = copy === undefined ? undefined : verifiedArchive(archivePath(cacheDir, join(cacheDir, copy)));
  const classPath = (out: string): string[] =>
    archive && copy ? [`-XX:SharedArchiveFile=${archive}`, '-cp', `${join(cacheDir, copy)}:${out}`] : ['-cp', `${out}:${compiler.stdlibJar()}`];
  try {
    const wallS = await timed(dirs, jobs, async (dir, i) => {
      const out = join(scratch, `kt-${i}`);
      const source = readFileSync(join(dir, 'Main.kt'), 'utf8');
      const c0 = performance.now();
      const r = await compiler.compile({ sources: [{ name: 'Main.kt', content: source }], outDir: out, flags });
      compileMs.push(performance.now() - c0);
      if (!r.ok) return;
      const mainClass = source.includes('object PolyevalEntry') ? 'PolyevalEntry' : 'MainKt';
      const start = classPath(out);
      runMs.push(await ms(jdkTool('launcher'), ['-Xmx512m', ...JVM_RUN_FLAGS, ...start, mainClass, TOKEN], out));
    });
    await compiler.close();
    // The server's CPU (its start-up included) is counted once it has exited.
    return { wallS, cpuS: childrenCpuS() - cpu0, compileMs, runMs, setupS, samples: dirs.length };
  } finally {
    await compiler.close();
  }
}
