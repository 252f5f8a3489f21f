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
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
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
import { pythonRuntime } from '../layers/sandbox/languages/python.ts';
import type { RuntimeContext } from '../layers/sandbox/runtime.ts';
import { UNIT_TEST_LIMITS } from '../layers/core/judging/unit-tests.ts';

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

export async function cppFloor(cacheDir: string, scratch: string, jobs: number): Promise<Floor> {
  const [pch, preload] = await Promise.all([ensurePch(cacheDir, '/usr/bin/g++', [...CPP_UNIT_TEST_FLAGS]), ensureGccPreload(cacheDir)]);
  const dirs = builds(cacheDir, 'main.cpp');
  const compileMs: number[] = [];
  const runMs: number[] = [];
  const cpu0 = childrenCpuS();
  const wallS = await timed(dirs, jobs, async (dir, i) => {
    const out = join(scratch, `cpp-${i}`);
    mkdirSync(out, { recursive: true });
    const { argv, env } = cppFloorCompile(out, join(dir, 'main.cpp'), pch.dir, preload.path);
    compileMs.push(await ms(argv[0] as string, argv.slice(1), out, env));
    // The program as the sandbox starts it (an empty environment, never the compiler's), stopped
    // at a run's time limit as MXEval stops it (10 s): a program that never ends costs the floor that, not 60 s.
    if (existsSync(join(out, 'prog'))) runMs.push(await ms(join(out, 'prog'), [TOKEN], out, {}, UNIT_TEST_LIMITS.cpuMs));
  });
  return { wallS, cpuS: childrenCpuS() - cpu0, compileMs, runMs, setupS: 0, samples: dirs.length };
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
