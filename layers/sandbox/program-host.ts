/**
 * The sandbox's implementation of core's `ProgramHost`: builds through the compile cache
 * and runs each test in a fresh, empty working directory that is removed afterwards,
 * then classifies how the run ended (time, memory, output, signal, exit).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError, InputError } from '#core/errors.ts';
import type { Termination } from '#core/judging/index.ts';
import type { Preparation, ProgramHost, ProgramRun, RunRequest, UnitTestSource } from '#core/judging/index.ts';
import type { ToolchainOptions } from '#core/languages/index.ts';
import type { LanguageId } from '#core/types.ts';
import type { CompileCache } from './compile-cache.ts';
import { giveToSandbox, readOutputFile } from './files.ts';
import { loadScale } from './load.ts';
import type { LanguageRuntime, RuntimeContext } from './runtime.ts';
import type { SandboxLimits, SandboxResult, SandboxSpec } from './sandbox-process.ts';

/** Fixed limits of a test run besides time and memory. */
export const RUN_LIMITS = { fileSizeMb: 64, openFiles: 64, outputBytes: 64 * 1024 * 1024, tmpMb: 64 };

export interface ProgramHostDeps {
  runtimeFor(language: LanguageId): Promise<LanguageRuntime>;
  cache: CompileCache;
  workRoot: string;
  run(spec: SandboxSpec): Promise<SandboxResult>;
  /** The runtimes' context, for a runtime that runs its programs its own way (`runProgram`). */
  ctx?: RuntimeContext;
}

/** How a run ended, from the supervisor's facts and the runtime's reading of stderr. */
export function classify(
  r: SandboxResult,
  runtime: LanguageRuntime,
  limits: { cpuMs: number; memoryMb: number; addressSpaceMb: number; heapCapped?: boolean },
): Termination {
  // Python ignores SIGXFSZ, so a full file shows as EFBIG ("File too large") instead.
  if (r.outputExceeded || r.signal === 'SIGXFSZ' || (r.exitCode !== 0 && /File too large/u.test(r.stderr))) return 'output';
  const failed = r.signal !== null || r.exitCode !== 0;
  // A failed run whose resident memory went above the limit is MLE, whatever stopped it: the
  // limit was crossed before the run ended. (Filling memory costs CPU time in page faults, so
  // on a loaded machine a bomb can run out of CPU just before RLIMIT_AS stops it.) Not under a
  // runtime's own heap cap (JVM, V8), whose resident memory counts the runtime besides the heap.
  if (failed && !limits.heapCapped && limits.addressSpaceMb > 0 && r.peakMemoryKb > limits.memoryMb * 1024) return 'memory';
  if (r.wallTimeout || r.signal === 'SIGXCPU' || r.cpuMs > limits.cpuMs) return 'time';
  // Under RLIMIT_AS an allocation fails near the limit; under a runtime's own heap cap (JVM) only stderr tells.
  const nearLimit = limits.addressSpaceMb > 0 && !limits.heapCapped && r.peakMemoryKb >= limits.memoryMb * 1024 * 0.8;
  if (failed && (runtime.isOutOfMemory(r.stderr) || nearLimit)) return 'memory';
  if (r.signal !== null) return 'signaled';
  return 'exited';
}

export class SandboxProgramHost implements ProgramHost {
  constructor(private readonly deps: ProgramHostDeps) {}

  async prepare(language: LanguageId, code: string, toolchain: ToolchainOptions = {}): Promise<Preparation> {
    return this.build(await this.deps.runtimeFor(language), code, toolchain);
  }

  async prepareUnitTest(source: UnitTestSource): Promise<Preparation> {
    const base = await this.deps.runtimeFor(source.language);
    const runtime = base.unitTests ?? base;
    return this.build(runtime, runtime.unitTestProgram(source), source.toolchain ?? {});
  }

  private async build(runtime: LanguageRuntime, code: string, toolchain: ToolchainOptions): Promise<Preparation> {
    const built = await this.deps.cache.build(runtime, code, toolchain);
    if (!built.ok) return { ok: false, diagnostics: built.diagnostics, compileMs: built.compileMs };
    return { ok: true, compileMs: built.compileMs, program: { run: (req) => this.runOnce(runtime, built.dir, req) } };
  }

  private async runOnce(runtime: LanguageRuntime, buildDir: string, req: RunRequest): Promise<ProgramRun> {
    const command = runtime.runCommand(buildDir, req.limits.memoryMb, req.args ?? []);
    const cpuMs = Math.round(req.limits.cpuMs * (command.cpuFactor ?? 1));
    const limits: SandboxLimits = {
      ...RUN_LIMITS,
      cpuMs,
      // CPU time decides TLE; the wall clock only stops programs that never end (sleeping,
      // blocked), so on a busy machine it stretches with the load rather than cut fair runs short.
      wallMs: Math.round(Math.max(req.limits.wallMs, cpuMs + 1000) * loadScale()),
      addressSpaceMb: command.addressSpaceMb,
      processes: command.processes,
    };
    // The working directory's chores are synchronous calls: a few microseconds each, where a
    // promise call costs ~0.2 CPU-ms in libuv's thread pool round trip on our 2-core machines.
    const workDir = mkdtempSync(join(this.deps.workRoot, 'run-'));
    try {
      await giveToSandbox(workDir);
      for (const file of req.files ?? []) {
        if (file.name.includes('/') || file.name.startsWith('.')) throw new InputError(`bad test file name "${file.name}"`, { field: 'name' });
        writeFileSync(join(workDir, file.name), file.content, { mode: 0o644 });
      }
      const spec: SandboxSpec = {
        argv: command.argv,
        workDir,
        readOnly: command.readOnly,
        stdin: req.stdin,
        limits,
        ...(command.env ? { env: command.env } : {}),
      };
      const r = (this.deps.ctx && (await runtime.runProgram?.(this.deps.ctx, spec))) || (await this.deps.run(spec));
      let termination = classify(r, runtime, {
        cpuMs,
        memoryMb: req.limits.memoryMb,
        addressSpaceMb: command.addressSpaceMb,
        heapCapped: command.heapCapped === true,
      });
      const files: Record<string, string> = {};
      for (const name of req.collect ?? []) {
        const content = await readOutputFile(join(workDir, name), RUN_LIMITS.outputBytes);
        if (content === 'too-large') termination = 'output';
        else if (content !== undefined) files[name] = content;
      }
      return {
        termination,
        exitCode: r.exitCode,
        signal: r.signal,
        stdout: hide(r.stdout, command.hideInOutput),
        stderr: hide(r.stderr, command.hideInOutput),
        files,
        runMs: r.wallMs,
        cpuMs: r.cpuMs,
        peakMemoryKb: r.peakMemoryKb,
      };
    } finally {
      removeWorkDir(workDir, this.deps.ctx?.discard);
    }
  }
}

/** `text` without any of `strings` (RunCommand.hideInOutput). */
export function hide(text: string, strings: readonly string[] | undefined): string {
  let out = text;
  for (const s of strings ?? []) if (s) out = out.split(s).join('');
  return out;
}

/**
 * Removes a test's working directory (through `discard`, in the background, once moved out of
 * the way); one that cannot be removed or moved is the harness's failure (SE), never a verdict.
 */
function removeWorkDir(workDir: string, discard: ((path: string) => void) | undefined): void {
  try {
    if (discard) discard(workDir);
    else rmSync(workDir, { recursive: true, force: true });
  } catch (cause) {
    throw new HarnessError(`cannot remove sandbox directory ${workDir}`, { cause });
  }
}
