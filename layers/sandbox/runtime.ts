/**
 * The language runtime interface. Adding a language is one file in `languages/` that
 * exports a `LanguageRuntime`, plus one entry in `LANGUAGE_RUNTIMES` (languages/index.ts);
 * its core spec (layers/core/languages) and its image (a stage of layers/images/Dockerfile) are the rest.
 * Toolchain options reach the runtime with each compilation (never as process-wide state),
 * so two jobs with different options can compile at once.
 */
import type { ToolchainOptions } from '#core/languages/index.ts';
import type { UnitTestSource } from '#core/judging/index.ts';
import type { LanguageId } from '#core/types.ts';
import type { ToolchainInfo } from '#core/ports.ts';
import type { SandboxLimits, SandboxResult, SandboxSpec } from './sandbox-process.ts';
import type { SandboxService } from './sandbox-service.ts';

/** Who programs run as, and what confines their writes (from the executor's isolation). */
export interface ProgramWriters {
  level: 'bwrap' | 'rlimits';
  /** Landlock confines programs' writes to their working directory. */
  landlock: boolean;
  /** The uid programs run as. */
  uid: number;
}

/** Services a runtime may use while compiling. */
export interface RuntimeContext {
  /** Machine-wide cache directory (0755), e.g. for the C++ precompiled header. */
  cacheDir: string;
  /** A read-only directory of pieces built at `docker build` (the executor images' $POLYEVAL_CACHE, see `prebuild`). */
  prebuiltDir?: string;
  /** Who programs run as and what confines their writes: whether a shared file is out of their reach. */
  programWriters: ProgramWriters;
  /** Runs a trusted-toolchain command on untrusted input inside the sandbox (compile limits). */
  sandboxed(spec: { argv: string[]; workDir: string; readOnly?: string[]; env?: Record<string, string> }): Promise<SandboxResult>;
  kotlinMode: 'warm' | 'cold';
  /**
   * Moves a finished directory below the executor's work root out of the way at once and
   * removes it in the background (trash.ts); throws when it cannot be moved. Absent: remove it in place.
   */
  discard?(path: string): void;
  /**
   * Starts a long-lived trusted-toolchain process on untrusted input inside the sandbox
   * (compile limits, its CPU limit for its whole life) with its stdin and stdout kept open,
   * in a working directory of its own that goes when it ends (the Python syntax checker).
   * Absent where no such process can be kept (then runtimes use `sandboxed`).
   */
  service?(spec: { argv: string[]; readOnly?: string[]; env?: Record<string, string> }): Promise<SandboxService>;
  /**
   * Starts a long-lived process that runs programs for the runtime (Python's zygote) in the
   * sandbox as programs run, under the limits given, in a working directory of its own
   * (`workDir`, removed when it ends). Absent where the sandbox could not confine the programs
   * it starts (no seccomp filter; under bubblewrap, no Landlock): then every program is a
   * sandboxed process of its own.
   *
   * `shown` (each also in `readOnly`): directories the service sees only the part of that its
   * caller copies into `shown[path]`, a host directory of ours bound read-only at `path`
   * (under bubblewrap, where a program may read all of the sandbox's /tmp: a build directory
   * below /tmp would show it every build). Where nothing is bound (rlimits) `shown[path]` is
   * `path` itself, and each program's Landlock domain confines it to its own part.
   */
  programService?(spec: {
    argv: string[];
    readOnly: string[];
    shown?: string[];
    limits: SandboxLimits;
  }): Promise<SandboxService & { workDir: string; shown: Record<string, string> }>;
}

/** What a compilation produced; diagnostics feed the CE `error` field. */
export interface CompileResult {
  ok: boolean;
  diagnostics: string;
  /**
   * The compiler ran out of wall-clock time. On a loaded machine that says more about the
   * machine than about the source, so such a result is never cached: the next run compiles again.
   */
  timedOut?: boolean;
  /**
   * The compiler was killed by a signal (the OOM killer, a shutdown, a stray kill, a limit):
   * like a timeout, not a fact about the source, so never cached either.
   */
  killed?: boolean;
}

/** How a compilation killed by a signal begins its diagnostics (also in caches written before `killed`). */
export const COMPILER_KILLED = 'compiler killed by ';

/** How to run a built program. Paths are host paths; the sandbox shows them at the same place. */
export interface RunCommand {
  argv: string[];
  /** Extra read-only paths the program needs (interpreter prefix, stdlib jar, …). */
  readOnly: string[];
  env?: Record<string, string>;
  /** RLIMIT_AS in MB, 0 for none. */
  addressSpaceMb: number;
  /**
   * The runtime caps its own heap and reports exhaustion on stderr (the JVM's -Xmx), and
   * RLIMIT_AS is only a backstop far above the memory limit: only stderr means MLE, not a
   * failure after a peak near the limit (a program that filled most of its heap, then threw).
   */
  heapCapped?: boolean;
  /** RLIMIT_NPROC: processes and threads. */
  processes: number;
  /** Multiplies the CPU limit (the JVM's JIT and GC threads burn CPU on other cores). */
  cpuFactor?: number;
  /**
   * Strings taken out of the program's stdout and stderr before anything reads them (a
   * batched Kotlin compilation's package, so class names read as the program compiled alone).
   */
  hideInOutput?: string[];
}

/**
 * One language: how to check its toolchain, compile a source into a build directory, run
 * the result, and assemble a unit-test program whose epilogue prints the token passed as
 * the last command-line argument after the test's last statement.
 * @example
 * export const rubyRuntime: LanguageRuntime = { id: 'ruby', sourceFile: 'main.rb', … };
 */
export interface LanguageRuntime {
  readonly id: LanguageId;
  /** File name of the source inside the build directory. */
  readonly sourceFile: string;
  /** One-time setup (resolve the interpreter, build a PCH). Safe to call repeatedly. */
  init(ctx: RuntimeContext): Promise<void>;
  /** The toolchain a job with `options` compiles with (recorded in the manifest). */
  toolchain(ctx: RuntimeContext, options: ToolchainOptions): Promise<ToolchainInfo>;
  /** Compiler identity and flags for `options`, part of the compile cache key. */
  cacheKey(ctx: RuntimeContext, options: ToolchainOptions): Promise<string>;
  /** Compiles `<buildDir>/<sourceFile>` into `buildDir` with the job's `options` (interpreters check syntax). */
  compile(ctx: RuntimeContext, buildDir: string, options: ToolchainOptions): Promise<CompileResult>;
  /**
   * Work done once at `docker build` into the image's read-only cache (the C++ precompiled
   * headers, the Kotlin compile server); returns what it built, for the build log.
   */
  prebuild?(cacheDir: string): Promise<string>;
  runCommand(buildDir: string, memoryMb: number, args: string[]): RunCommand;
  /** prompt + completion + test + epilogue printing argv's last element. */
  unitTestProgram(source: UnitTestSource): string;
  /**
   * The runtime unit-test programs build and run with, when it differs from this one
   * (C++: MXEval's compiler flags). It is initialised on first use.
   */
  readonly unitTests?: LanguageRuntime;
  /**
   * Compilations queued together cost less than one by one (Kotlin's batched compilations):
   * the executor then compiles this language's samples ahead of their runs, so they queue.
   */
  readonly batchesCompiles?: boolean;
  /** Whether stderr says the program ran out of memory. */
  isOutOfMemory(stderr: string): boolean;
  /**
   * Runs a program built by this runtime its own way (Python's zygote) with the isolation and
   * limits `spec` asks for; `undefined` when it cannot, and the program then runs as a
   * sandboxed process of its own, whose verdict the runtime's way never changes.
   */
  runProgram?(ctx: RuntimeContext, spec: SandboxSpec): Promise<SandboxResult | undefined>;
  close?(): Promise<void>;
}

/** Limits of a compilation (DESIGN §7: its own limit, never counted as test time). */
export const COMPILE_LIMIT_MS = 60_000;
