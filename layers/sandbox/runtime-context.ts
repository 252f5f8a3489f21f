/**
 * The services runtimes compile with (`RuntimeContext`), over one isolation and supervisor:
 * one-shot sandboxed toolchain runs under the compile limits, and long-lived sandboxed
 * services (the Python syntax checker) under the same limits for their whole life.
 *
 * Services exist only where programs cannot reach them: under bubblewrap each program has its
 * own pid and mount namespaces. At the rlimits level (no namespaces: Lambda) a program runs as
 * the services' uid, sees them in /proc and may write their memory through /proc/<pid>/mem or
 * kill them, so a hostile sample could decide another sample's CE (test/sandbox/rlimits.test.ts
 * does it). There every check is a one-shot process of its own sample, which a program can
 * only meet while both run (the concurrent-programs gap the level states).
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { giveToSandbox } from './files.ts';
import type { IsolationConfig } from './isolation.ts';
import { loadScale } from './load.ts';
import { COMPILE_LIMIT_MS, type RuntimeContext } from './runtime.ts';
import { runSandboxed, type SandboxLimits } from './sandbox-process.ts';
import { startSandboxService, type SandboxService } from './sandbox-service.ts';
import type { Trash } from './trash.ts';

const COMPILE_LIMITS: SandboxLimits = {
  cpuMs: COMPILE_LIMIT_MS,
  wallMs: 2 * COMPILE_LIMIT_MS,
  addressSpaceMb: 4096,
  fileSizeMb: 512,
  processes: 64,
  openFiles: 256,
  outputBytes: 1024 * 1024,
  tmpMb: 512,
};
/**
 * A service's limits: one compilation's CPU time for its whole life (its user recycles it
 * long before), no files to write, a wall limit that only ends one forgotten for an hour.
 */
const SERVICE_LIMITS: SandboxLimits = {
  cpuMs: COMPILE_LIMIT_MS,
  wallMs: 3_600_000,
  addressSpaceMb: 1024,
  fileSizeMb: 1,
  processes: 8,
  openFiles: 64,
  outputBytes: 1024 * 1024,
  tmpMb: 16,
};

/** The context of an executor whose sandbox is `iso` with `supervisor`; services get their working directories under `workRoot`. */
export function createRuntimeContext(
  iso: IsolationConfig,
  supervisor: string,
  opts: { cacheDir: string; workRoot: string; kotlinMode: 'warm' | 'cold'; prebuiltDir?: string | undefined; trash?: Trash },
): RuntimeContext {
  const trash = opts.trash;
  return {
    cacheDir: opts.cacheDir,
    ...(trash ? { discard: (path: string) => trash.discard(path) } : {}),
    ...(opts.prebuiltDir === undefined ? {} : { prebuiltDir: opts.prebuiltDir }),
    programWriters: { level: iso.level, landlock: iso.confine.landlock >= 1, uid: iso.dropTo ?? process.getuid?.() ?? 0 },
    kotlinMode: opts.kotlinMode,
    // Compilers are charged CPU time too; their wall safety net stretches with the load.
    sandboxed: (spec) =>
      runSandboxed(iso, supervisor, {
        ...spec,
        readOnly: spec.readOnly ?? [],
        stdin: '',
        limits: { ...COMPILE_LIMITS, wallMs: Math.round(COMPILE_LIMITS.wallMs * loadScale()) },
      }),
    ...(iso.level === 'bwrap' ? { service: (spec: ServiceSpec) => startService(iso, supervisor, opts.workRoot, spec) } : {}),
    // A program service confines what it starts only as far as its own confinement goes: the
    // seccomp filter at both levels (no ptrace of it), and under bubblewrap Landlock too (a
    // sample reads only its own build there, though the service sees every build).
    ...(programServiceConfines(iso) ? { programService: (spec: ProgramServiceSpec) => startProgramService(iso, supervisor, opts.workRoot, spec) } : {}),
  };
}

/** Whether a program service (Python's zygote) can confine the programs it starts under `iso` (see `programService`). */
export function programServiceConfines(iso: IsolationConfig): boolean {
  return iso.confine.seccomp && (iso.level === 'rlimits' || iso.confine.landlock >= 1);
}

type ProgramServiceSpec = Parameters<NonNullable<RuntimeContext['programService']>>[0];

/** A long-lived program service with its own working directory under `workRoot`, removed when it ends. */
async function startProgramService(
  iso: IsolationConfig,
  supervisor: string,
  workRoot: string,
  spec: ProgramServiceSpec,
): Promise<SandboxService & { workDir: string; shown: Record<string, string> }> {
  // Ours, not the sandbox uid's: the samples' directories in it are made and removed by us
  // alone (a sample that could rename them would turn them into links to host directories).
  const workDir = await mkdtemp(join(workRoot, 'service-'));
  await chmod(workDir, 0o755);
  // Each directory shown in part: an empty one of ours (beside workDir, never bound writable), bound at its path.
  const shown: Record<string, string> = {};
  for (const path of spec.shown ?? []) {
    if (iso.level !== 'bwrap') {
      shown[path] = path;
      continue;
    }
    const view = await mkdtemp(join(workRoot, 'service-shown-'));
    await chmod(view, 0o755);
    shown[path] = view;
  }
  // It reads /proc so that the programs it starts can each be let read their own /proc/<pid>.
  const service = startSandboxService(iso, supervisor, {
    argv: spec.argv,
    workDir,
    readOnly: spec.readOnly,
    ...(iso.level === 'bwrap' ? { boundFrom: shown } : {}),
    confinedReads: ['/proc'],
    stdin: '',
    limits: spec.limits,
  });
  const views = Object.entries(shown).flatMap(([path, view]) => (view === path ? [] : [view]));
  void service.exited.then(() => Promise.all([workDir, ...views].map((d) => rm(d, { recursive: true, force: true })))).catch(() => undefined);
  return { ...service, workDir, shown };
}

type ServiceSpec = Parameters<NonNullable<RuntimeContext['service']>>[0];

/** A long-lived sandboxed process with its own working directory under `workRoot`, removed when it ends. */
async function startService(iso: IsolationConfig, supervisor: string, workRoot: string, spec: ServiceSpec): Promise<SandboxService> {
  const workDir = await mkdtemp(join(workRoot, 'service-'));
  await giveToSandbox(workDir);
  const service = startSandboxService(iso, supervisor, { ...spec, workDir, readOnly: spec.readOnly ?? [], stdin: '', limits: SERVICE_LIMITS });
  void service.exited.then(() => rm(workDir, { recursive: true, force: true })).catch(() => undefined);
  return service;
}
