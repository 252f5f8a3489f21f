/**
 * The local `Executor` port adapter: scores io-tests and unit-tests samples in the sandbox
 * on this machine, `concurrency` samples at a time. A harness failure is retried once and
 * then recorded as `SE` (never charged to the model, never disguised as another verdict); a
 * `TransientError` (a throttled runner function) is thrown on, for the caller's queue to retry.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit, { type LimitFunction } from 'p-limit';
import { InputError, TransientError } from '#core/errors.ts';
import type { ExecutionJob, Executor, ToolchainInfo } from '#core/ports.ts';
import type { TestFileLoader } from '#core/judging/index.ts';
import { executeOnHost, scorerByKind } from '#core/scorers/index.ts';
import type { Preparation, ProgramHost } from '#core/judging/index.ts';
import type { ProgramRunner } from '#core/judging/index.ts';
import type { LanguageId, ScoreOutcome } from '#core/types.ts';
import { CompileCache } from './compile-cache.ts';
import { resolveIsolation, type IsolationLevel, type IsolationOptions, type IsolationReport } from './isolation.ts';
import { LANGUAGE_RUNTIMES } from './languages/index.ts';
import { SandboxProgramHost } from './program-host.ts';
import type { LanguageRuntime } from './runtime.ts';
import { runSandboxed } from './sandbox-process.ts';
import { createRuntimeContext } from './runtime-context.ts';
import { Trash, trashOutOfReach } from './trash.ts';
import { ensureSharedDir, ensureSupervisor } from './supervisor.ts';

/** Options of `createSandboxExecutor`; every field has a default. */
export interface SandboxExecutorOptions {
  /** Samples scored at once (default: os.availableParallelism()). */
  concurrency?: number;
  /** 'auto' (default) uses bubblewrap when it works here, else rlimits only. */
  isolation?: 'auto' | IsolationLevel;
  /** Parent of the per-test working directories (default: <tmpdir>/polyeval-work). */
  workRoot?: string;
  /** Builds, the supervisor and the C++ PCH (default: <tmpdir>/polyeval-cache). */
  cacheDir?: string;
  /** A read-only directory holding the prebuilt supervisor (the executor images' $POLYEVAL_CACHE). */
  prebuiltDir?: string;
  /** bubblewrap path and seccomp/Landlock choice (default: POLYEVAL_BWRAP, POLYEVAL_CONFINE). */
  isolationOptions?: Omit<IsolationOptions, 'supervisor'>;
  kotlinMode?: 'warm' | 'cold';
  /** Reads tests stored by path (default: the file system). */
  loadTestFile?: TestFileLoader;
  /**
   * Samples of a language that batches its compilations (Kotlin) taken beyond `concurrency`
   * and compiled ahead of their runs, while at most `concurrency` programs run (default 16; 0: none).
   */
  compileAhead?: number;
  /** Per-execution unit-test token (default: 128 random bits). */
  token?: () => string;
  /**
   * Where samples' programs run instead of this machine's sandbox (the cloud judge's untrusted
   * runner function); checker programs still run here. Default: in process.
   */
  runner?: ProgramRunner;
  /** The isolation recorded for a sample the runner could not score (SE); default this sandbox's label. */
  runnerIsolation?: string;
}

/** The executor plus what it resolved (for doctor and tests). */
export interface SandboxExecutor extends Executor {
  readonly isolation: IsolationLevel;
  /** What was detected, including what programs could still reach (`exposures`). */
  readonly isolationReport: IsolationReport;
  readonly cacheDir: string;
  readonly workRoot: string;
  /** Compiles and runs programs in this sandbox (what a runner function serves). */
  readonly host: ProgramHost;
}

/**
 * Creates the sandbox executor.
 * @example
 * const executor = await createSandboxExecutor({ concurrency: 2 });
 * const outcome = await executor.execute({ scorer: 'io-tests', task, language: 'cpp', code });
 * await executor.close();
 */
/** Where builds, the supervisor and the C++ PCH live unless told otherwise (`polyeval gc` prunes its builds). */
export function defaultSandboxCacheDir(): string {
  return join(tmpdir(), 'polyeval-cache');
}

export async function createSandboxExecutor(options: SandboxExecutorOptions = {}): Promise<SandboxExecutor> {
  const concurrency = options.concurrency ?? availableParallelism();
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new InputError(`concurrency must be a positive integer, got ${concurrency}`, { field: 'concurrency' });
  const cacheDir = options.cacheDir ?? defaultSandboxCacheDir();
  const workRoot = options.workRoot ?? join(tmpdir(), 'polyeval-work');
  await ensureSharedDir(cacheDir);
  await ensureSharedDir(workRoot);
  const supervisor = await ensureSupervisor(cacheDir, options.prebuiltDir);
  const iso = await resolveIsolation(options.isolation ?? 'auto', { ...options.isolationOptions, supervisor });
  // Finished directories go to a trash emptied in the background (removing them in place held
  // the event loop), where no program can read it (trash.ts); elsewhere they are removed in place.
  const trash = trashOutOfReach(iso) ? new Trash(workRoot) : undefined;
  const ctx = createRuntimeContext(iso, supervisor, { cacheDir, workRoot, kotlinMode: options.kotlinMode ?? 'warm', prebuiltDir: options.prebuiltDir, trash });

  const ready = new Map<LanguageId, Promise<LanguageRuntime>>();
  const runtimeFor = (language: LanguageId): Promise<LanguageRuntime> => {
    let r = ready.get(language);
    if (!r) {
      const runtime = LANGUAGE_RUNTIMES.find((x) => x.id === language);
      if (!runtime)
        return Promise.reject(
          new InputError(`no runtime for language "${language}" (have: ${LANGUAGE_RUNTIMES.map((x) => x.id).join(', ')})`, { field: 'language' }),
        );
      r = runtime.init(ctx).then(() => runtime);
      r.catch(() => ready.delete(language));
      ready.set(language, r);
    }
    return r;
  };
  const host = new SandboxProgramHost({
    runtimeFor,
    cache: new CompileCache(join(cacheDir, 'builds'), ctx),
    workRoot,
    run: (spec) => runSandboxed(iso, supervisor, spec),
    ctx,
  });
  const token = options.token ?? (() => randomBytes(16).toString('hex'));
  const loadTestFile = options.loadTestFile ?? ((path: string) => readFile(path, 'utf8'));
  const slots = pLimit(concurrency);
  const ahead = options.compileAhead ?? 16;
  if (!Number.isInteger(ahead) || ahead < 0) throw new InputError(`compileAhead must be a non-negative integer, got ${ahead}`, { field: 'compileAhead' });
  // Samples compiling ahead, or compiled and waiting for a run slot: only the runs take `slots`.
  const aheadSlots = pLimit(concurrency + ahead);
  const batching = new Set<LanguageId>(LANGUAGE_RUNTIMES.filter((r) => r.batchesCompiles).map((r) => r.id));
  let aheadActive = false;
  const runSlotHost = runsInSlots(host, slots);

  const runner = options.runner ? { runner: options.runner } : {};
  const scoreOnce = (job: ExecutionJob): Promise<ScoreOutcome> => executeOnHost(job, host, { loadTestFile, token, ...runner });
  const failedIsolation = options.runnerIsolation ?? iso.report.label;

  return {
    isolation: iso.level,
    isolationReport: iso.report,
    cacheDir,
    workRoot,
    host,
    execute(job) {
      const labels = { label: iso.report.label, failed: failedIsolation };
      if (aheadActive && batching.has(job.language)) {
        return aheadSlots(() => executeJob(job, (j) => executeOnHost(j, runSlotHost, { loadTestFile, token }), labels));
      }
      return slots(() => executeJob(job, scoreOnce, labels));
    },
    compileAhead: () => (aheadActive ? ahead : 0),
    prepare(languages) {
      if (options.runner) return; // programs compile in the runner, not here
      if (ahead > 0 && languages.some((l) => batching.has(l))) aheadActive = true;
      // runtime init starts slow set-up in the background (the Kotlin runtime's compile server).
      for (const language of new Set(languages)) runtimeFor(language).catch(() => undefined);
    },
    async toolchains(options = {}, languages?: ReadonlySet<LanguageId>): Promise<ToolchainInfo[]> {
      const probed = languages ? LANGUAGE_RUNTIMES.filter((r) => languages.has(r.id)) : LANGUAGE_RUNTIMES;
      return Promise.all(probed.map((r) => r.toolchain(ctx, options[r.id] ?? {})));
    },
    async close() {
      await Promise.all(LANGUAGE_RUNTIMES.map((r) => r.close?.()));
      await trash?.empty();
    },
  };
}

/**
 * Scores one job with `scoreOnce`: a harness failure is tried once more and then the sample's
 * `SE` (with `isolation.failed`); an `InputError` is not retried; a `TransientError` (a
 * throttled or inactive runner function) is thrown on, for the caller's queue to retry later.
 * The outcome names `isolation.label` unless the runner named its own.
 */
export async function executeJob(
  job: ExecutionJob,
  scoreOnce: (job: ExecutionJob) => Promise<ScoreOutcome>,
  isolation: { label: string; failed: string },
): Promise<ScoreOutcome> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      const outcome = await scoreOnce(job);
      // A remote runner names its own level; in process it is this sandbox's.
      return { ...outcome, isolation: outcome.isolation ?? isolation.label };
    } catch (error) {
      if (error instanceof TransientError) throw error;
      lastError = error;
      if (error instanceof InputError) break; // a bad task does not get better on retry
    }
  }
  const testsTotal = scorerByKind(job.scorer).testsTotal(job.task);
  return { verdict: 'SE', testsPassed: 0, testsTotal, error: lastError instanceof Error ? lastError.message : String(lastError), isolation: isolation.failed };
}

/** `host` whose programs' runs each take one of `slots` (their compilations take none). */
function runsInSlots(host: ProgramHost, slots: LimitFunction): ProgramHost {
  const wrap = async (prepared: Promise<Preparation>): Promise<Preparation> => {
    const p = await prepared;
    if (!p.ok) return p;
    const { program } = p;
    return { ...p, program: { ...program, run: (req) => slots(() => program.run(req)) } };
  };
  return {
    prepare: (language, code, toolchain) => wrap(host.prepare(language, code, toolchain)),
    prepareUnitTest: (source) => wrap(host.prepareUnitTest(source)),
  };
}
