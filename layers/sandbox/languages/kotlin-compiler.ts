/**
 * The Kotlin compiler as the kotlin runtime sees it: `compile` sources into a class
 * directory, warm (one long-lived compile-server JVM, see ../kotlin-server/) or cold (one
 * `kotlinc` per compilation, also the automatic fallback when the server cannot start).
 *
 * Every compilation also gets `-no-reflect` unless the caller's flags say otherwise:
 * programs run against kotlin-stdlib alone, so compiling against kotlin-reflect would only
 * turn a compile error into a runtime one (and the classpath is smaller).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import pLimit from 'p-limit';
import { HarnessError, InputError } from '../../core/errors.ts';
import { runKotlinc } from '../kotlin-server/cold.ts';
import { loadScale } from '../load.ts';
import { kotlinHome, kotlinVersion } from '../kotlin-server/toolchain.ts';
import { ServerDiedTwice, ServerStartFailed, WarmServerPool, type WarmPoolStats } from '../kotlin-server/warm-pool.ts';
import { KotlinBatcher, type UnitCompileRequest, type UnitCompileResult } from './kotlin-batch.ts';

/** How a compiler is set up; every field has a default. */
export interface KotlinCompilerOptions {
  /** 'warm' (default): compile server JVM; 'cold': `kotlinc` per compilation. */
  mode?: 'warm' | 'cold';
  /** Compilations after which the server JVM is replaced (default 200). */
  recycleAfter?: number;
  /** Compilations at once, as threads of one server JVM (default: cores, at most 8). */
  maxInFlight?: number;
  /** -Xmx of the server JVM in MiB (default 1024). */
  maxHeapMb?: number;
  /** Heap in use after a GC above which the server is recycled, in MiB (default 70 % of maxHeapMb). */
  recycleHeapMb?: number;
  /** CPU-time limit of one compilation, queueing excluded (default 60 000 ms, DESIGN §7); the wall-clock safety net is this times the load factor. */
  timeoutMs?: number;
  /** Compilations a new server JVM runs on itself before taking requests, proving it works (default 1: with C1 only and a CDS archive, more warm-ups cost more than they save). */
  warmUps?: number;
  /** Limit on starting and warming one server JVM (default 180 000 ms). */
  startTimeoutMs?: number;
  /** Most programs one batched compilation takes (`compileUnit`; default 8, 1 = never batch). */
  maxBatch?: number;
}

/** One Kotlin source file; `name` is a bare file name ending in `.kt` (it fixes the class name, e.g. Main.kt → MainKt). */
export interface KotlinSource {
  name: string;
  content: string;
}

/** One compilation: sources, the directory classes go to (created if missing), extra kotlinc flags. */
export interface KotlinCompileRequest {
  sources: KotlinSource[];
  outDir: string;
  /** Passed to kotlinc as they are, e.g. ['-language-version', '2.0', '-api-version', '2.0', '-nowarn']. */
  flags?: string[];
}

/** The outcome: `ok` false means the program did not compile (`diagnostics` says why). */
export interface KotlinCompileResult {
  ok: boolean;
  /** Compiler messages, file paths relative to the sources (e.g. "Main.kt:3:15: error: …"). */
  diagnostics: string;
  /** Wall time of this compilation, queueing excluded, in milliseconds (in a batch of n programs, the batch's wall ÷ n). */
  ms: number;
  path: 'warm' | 'cold';
  /** True when the compilation hit `timeoutMs` (then `ok` is false). */
  timedOut?: boolean;
}

/** The compiler the kotlin runtime calls. */
export interface KotlinCompiler {
  compile(req: KotlinCompileRequest): Promise<KotlinCompileResult>;
  /**
   * Compiles one program (a file named Main.kt): alone when the server is idle, else together
   * with the programs queued meanwhile in one batched compilation, in a package of its own
   * (`package` in the result; see kotlin-batch.ts). Its CE and diagnostics are always as alone.
   */
  compileUnit(req: UnitCompileRequest): Promise<UnitCompileResult>;
  /** The compiler version, e.g. "2.4.20". */
  version(): Promise<string>;
  /** Absolute path of kotlin-stdlib.jar: run programs with `java -cp <outDir>:<stdlibJar> MainKt`. */
  stdlibJar(): string;
  /** Stops the server JVM (after its in-flight work). */
  close(): Promise<void>;
}

/** What the compiler is doing, for tests and `polyeval doctor`. */
export interface KotlinCompilerStats extends WarmPoolStats {
  mode: 'warm' | 'cold';
  /** Set once the warm server failed to start and compilations fell back to `kotlinc`. */
  fallbackReason: string | undefined;
}

/** {@link KotlinCompiler} plus introspection and an explicit warm-up. */
export interface KotlinCompilerHandle extends KotlinCompiler {
  /** Starts the server now (warm mode) so the first compilation does not pay for it; never throws. */
  warmUp(): Promise<void>;
  stats(): KotlinCompilerStats;
}

/** Flags every compilation gets unless the caller's flags already hold them (record them in manifests). */
export const IMPLICIT_KOTLINC_FLAGS: readonly string[] = ['-no-reflect'];

const SOURCE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*\.kt$/;
/** Consecutive failed server starts after which warm mode gives up for this compiler. */
const MAX_START_FAILURES = 2;

/**
 * Creates a Kotlin compiler.
 * @example
 * const kotlin = createKotlinCompiler();
 * const r = await kotlin.compile({ sources: [{ name: 'Main.kt', content: 'fun main() = println(1)' }], outDir: '/tmp/x' });
 * // r.ok → run `java -cp /tmp/x:${kotlin.stdlibJar()} MainKt`
 * await kotlin.close();
 */
export function createKotlinCompiler(opts: KotlinCompilerOptions = {}): KotlinCompilerHandle {
  const maxInFlight = positive(opts.maxInFlight, Math.min(8, Math.max(1, availableParallelism())), 'maxInFlight');
  const timeoutMs = positive(opts.timeoutMs, 60_000, 'timeoutMs');
  const maxHeapMb = positive(opts.maxHeapMb, 1024, 'maxHeapMb');
  const pool = new WarmServerPool({
    threads: maxInFlight,
    maxHeapMb,
    recycleAfter: positive(opts.recycleAfter, 200, 'recycleAfter'),
    recycleHeapMb: positive(opts.recycleHeapMb, Math.floor(maxHeapMb * 0.7), 'recycleHeapMb'),
    warmUps: positive(opts.warmUps, 1, 'warmUps'),
    startTimeoutMs: positive(opts.startTimeoutMs, 180_000, 'startTimeoutMs'),
  });
  const slots = pLimit(maxInFlight);
  let warm = (opts.mode ?? 'warm') === 'warm';
  let startFailures = 0;
  let fallbackReason: string | undefined;
  let closed = false;

  const noteStartFailure = (error: ServerStartFailed): void => {
    startFailures += 1;
    fallbackReason = error.message;
    if (startFailures >= MAX_START_FAILURES) warm = false;
  };

  async function compileStaged(args: string[], srcDir: string): Promise<Omit<KotlinCompileResult, 'ms'>> {
    if (warm) {
      try {
        const outcome = await pool.compile(args, timeoutMs);
        startFailures = 0;
        if (outcome.timedOut) return timedOut('warm', timeoutMs);
        return { ok: outcome.exitCode === 'OK', diagnostics: relativize(outcome.diagnostics, srcDir), path: 'warm' };
      } catch (error) {
        // A harness fault never becomes the sample's SE while cold kotlinc can still judge it.
        if (error instanceof ServerStartFailed) noteStartFailure(error);
        else if (!(error instanceof ServerDiedTwice)) throw error;
      }
    }
    // kotlinc's CPU time is not measurable from here: its wall limit stretches with the load.
    const cold = await runKotlinc(args, srcDir, Math.round(timeoutMs * loadScale(1)));
    if (cold.timedOut) return timedOut('cold', timeoutMs);
    if (cold.exitCode === null) throw new HarnessError(`kotlinc did not run: ${cold.diagnostics}`);
    return { ok: cold.exitCode === 0, diagnostics: relativize(cold.diagnostics, srcDir), path: 'cold' };
  }

  /** One compilation as it always was; the caller holds a slot. */
  async function compileNow(req: KotlinCompileRequest): Promise<KotlinCompileResult> {
    const files = checkSources(req.sources);
    const flags = req.flags ?? [];
    const outDir = resolve(req.outDir);
    const started = performance.now();
    const srcDir = await mkdtemp(join(tmpdir(), 'polyeval-ktsrc-'));
    try {
      await mkdir(outDir, { recursive: true });
      await Promise.all(files.map((f) => writeFile(join(srcDir, f.name), f.content, 'utf8')));
      const implicit = IMPLICIT_KOTLINC_FLAGS.filter((flag) => !flags.includes(flag));
      const args = [...implicit, ...flags, '-d', outDir, ...files.map((f) => join(srcDir, f.name))];
      const result = await compileStaged(args, srcDir);
      return { ...result, ms: Math.round(performance.now() - started) };
    } finally {
      await rm(srcDir, { recursive: true, force: true });
    }
  }

  const batcher = new KotlinBatcher({
    slots,
    maxBatch: positive(opts.maxBatch, 8, 'maxBatch'),
    warm: () => warm,
    implicitFlags: IMPLICIT_KOTLINC_FLAGS,
    async compileWarm(args) {
      try {
        const outcome = await pool.compile(args, timeoutMs);
        startFailures = 0;
        return outcome.timedOut ? undefined : outcome;
      } catch (error) {
        // Every program of the batch then compiles alone, which handles the fault as it always did.
        if (error instanceof ServerStartFailed) noteStartFailure(error);
        else if (!(error instanceof ServerDiedTwice)) throw error;
        return undefined;
      }
    },
    compileAlone: (req) => compileNow({ sources: [{ name: 'Main.kt', content: req.source }], outDir: req.outDir, flags: req.flags }),
  });

  return {
    async compile(req) {
      if (closed) throw new HarnessError('the Kotlin compiler is closed');
      checkSources(req.sources);
      return slots(() => compileNow(req));
    },
    async compileUnit(req) {
      if (closed) throw new HarnessError('the Kotlin compiler is closed');
      return batcher.compile({ ...req, outDir: resolve(req.outDir) });
    },
    version: async () => kotlinVersion(),
    stdlibJar: () => kotlinHome().stdlibJar,
    async warmUp() {
      if (!warm) return;
      try {
        await pool.prestart();
      } catch (error) {
        if (error instanceof ServerStartFailed) noteStartFailure(error);
      }
    },
    stats: () => ({ ...pool.stats(), mode: warm ? 'warm' : 'cold', fallbackReason }),
    async close() {
      closed = true;
      await pool.close();
    },
  };
}

function checkSources(sources: KotlinSource[]): KotlinSource[] {
  if (sources.length === 0) throw new InputError('no Kotlin sources to compile', { field: 'sources' });
  const seen = new Set<string>();
  sources.forEach((source, i) => {
    if (!SOURCE_NAME.test(source.name) || seen.has(source.name)) {
      throw new InputError(`bad or repeated Kotlin source name "${source.name}" (a bare file name ending in .kt)`, { field: `sources[${i}].name` });
    }
    seen.add(source.name);
  });
  return sources;
}

function relativize(diagnostics: string, srcDir: string): string {
  return diagnostics.split(`${srcDir}/`).join('').trimEnd();
}

function timedOut(path: 'warm' | 'cold', timeoutMs: number): Omit<KotlinCompileResult, 'ms'> {
  return { ok: false, diagnostics: `compilation timed out after ${timeoutMs} ms`, path, timedOut: true };
}

function positive(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new InputError(`must be a positive integer, got ${value}`, { field });
  return value;
}
