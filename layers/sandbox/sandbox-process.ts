/**
 * Runs one untrusted process: bubblewrap started as the sandbox uid (or nothing) →
 * pe-supervisor (rlimits, wall deadline, descendant cleanup, rusage report on fd 3, and at
 * the rlimits level the drop to the sandbox uid) → the program. Captures stdout up
 * to a cap while streaming (memory stays flat under a flood) and never trusts the program
 * to end: a backstop timer kills the whole process group.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { HarnessError } from '#core/errors.ts';
import { libLinks, type IsolationConfig } from './isolation.ts';

/** Limits of one sandboxed process tree. `addressSpaceMb: 0` sets none (the JVM reserves far more than it uses). */
export interface SandboxLimits {
  cpuMs: number;
  wallMs: number;
  addressSpaceMb: number;
  fileSizeMb: number;
  processes: number;
  openFiles: number;
  outputBytes: number;
  tmpMb: number;
}

/** One process to run. Every path is a host path, visible at the same path inside. */
export interface SandboxSpec {
  argv: string[];
  /** Bound read-write and used as cwd; the caller creates and removes it. */
  workDir: string;
  /** Host paths bound read-only (files or directories) besides /usr. */
  readOnly: string[];
  /**
   * Paths Landlock lets it read besides `readOnly` that are not bound into the sandbox (a
   * program service's `/proc`: each program it starts confines itself to its own `/proc/<pid>`).
   */
  confinedReads?: string[];
  /**
   * Under bubblewrap, the host directory bound read-only at a `readOnly` path instead of that
   * path itself (a program service that must see only what its caller puts there).
   */
  boundFrom?: Record<string, string>;
  /** The program's whole environment (default: empty). */
  env?: Record<string, string>;
  stdin: string;
  limits: SandboxLimits;
}

/** Raw facts of one run; classification into verdicts happens elsewhere. */
export interface SandboxResult {
  exitCode: number | null;
  signal: string | null;
  /** Killed at the wall-clock deadline (by the supervisor or the backstop). */
  wallTimeout: boolean;
  outputExceeded: boolean;
  cpuMs: number;
  wallMs: number;
  peakMemoryKb: number;
  stdout: string;
  stderr: string;
  /** Whether the supervisor reported (false when the program killed it or it was killed). */
  reported: boolean;
}

const STDERR_CAP = 64 * 1024;
const ETC_FILES = ['/etc/ld.so.cache', '/etc/alternatives', '/etc/localtime', '/etc/hosts', '/etc/nsswitch.conf'];

function signalName(n: number): string {
  const entry = Object.entries(constants.signals).find(([, v]) => v === n);
  return entry ? entry[0] : `signal ${n}`;
}

/**
 * The supervisor's confinement flag and paths: the program reads its own files (and the
 * system directories the supervisor adds), writes only its working directory — and the
 * private /tmp of bubblewrap's namespace, which no other process sees.
 */
export function confinementArgs(iso: IsolationConfig, spec: Pick<SandboxSpec, 'workDir' | 'readOnly' | 'confinedReads'>): string[] {
  const flags = `${iso.confine.seccomp ? 's' : ''}${iso.confine.landlock >= 1 ? 'l' : ''}` || '-';
  if (iso.confine.landlock < 1) return [flags];
  const writes = [spec.workDir, ...(iso.level === 'bwrap' ? ['/tmp'] : [])];
  return [flags, ...[...spec.readOnly, ...(spec.confinedReads ?? [])].flatMap((p) => ['-r', p]), ...writes.flatMap((p) => ['-w', p])];
}

/** The full command line for a spec under the given isolation. */
export function sandboxCommand(iso: IsolationConfig, supervisor: string, spec: SandboxSpec): string[] {
  const l = spec.limits;
  const sup = [
    supervisor,
    String(l.cpuMs),
    String(l.wallMs),
    String(l.addressSpaceMb * 1024 * 1024),
    String(l.fileSizeMb * 1024 * 1024),
    String(l.processes),
    String(l.openFiles),
    // bubblewrap already runs as the sandbox uid; without it the supervisor drops in the child.
    String(iso.level === 'rlimits' ? (iso.dropTo ?? -1) : -1),
    ...confinementArgs(iso, spec),
    '--',
    ...spec.argv,
  ];
  if (iso.level === 'rlimits') return sup;
  const binds = spec.readOnly.filter((p) => !p.startsWith('/usr/')).flatMap((p) => ['--ro-bind', spec.boundFrom?.[p] ?? p, p]);
  return [
    iso.bwrapPath,
    '--unshare-all',
    // The supervisor is the namespace's init: no extra reaper process, orphans re-parent to
    // it, and the kernel drops signals the program sends it (kill(getppid()) cannot stop it).
    '--as-pid-1',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--hostname',
    'sandbox',
    '--ro-bind',
    '/usr',
    '/usr',
    ...libLinks(),
    ...ETC_FILES.flatMap((p) => ['--ro-bind-try', p, p]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(l.tmpMb * 1024 * 1024),
    '--tmpfs',
    '/tmp',
    ...binds,
    '--bind',
    spec.workDir,
    spec.workDir,
    '--chdir',
    spec.workDir,
    '--ro-bind',
    supervisor,
    supervisor,
    ...sup,
  ];
}

interface Report {
  exit: number;
  signal: number;
  wall_timeout: number;
  utime_us: number;
  stime_us: number;
  maxrss_kb: number;
  wall_ms: number;
  exec_errno: number;
  /** 0: the program ran; 1 uid drop, 2 Landlock, 3 seccomp, 4 exec failed (see pe-supervisor.c). */
  stage: number;
}

const SETUP_STAGES = ['', 'dropping to the sandbox uid', 'applying the Landlock ruleset', 'installing the seccomp filter', 'executing'];

function parseReport(text: string): Report | undefined {
  const line = text.split('\n').find((l) => l.startsWith('exit='));
  if (!line) return undefined;
  const fields = Object.fromEntries(
    line
      .trim()
      .split(' ')
      .map((kv) => kv.split('=') as [string, string])
      .map(([k, v]) => [k, Number(v)]),
  );
  return fields as unknown as Report;
}

/**
 * Runs a spec to completion. Resolves with what happened; throws HarnessError only when
 * the sandbox itself could not start the program.
 */
export function runSandboxed(iso: IsolationConfig, supervisor: string, spec: SandboxSpec): Promise<SandboxResult> {
  const argv = sandboxCommand(iso, supervisor, spec);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd: spec.workDir,
      env: spec.env ?? {},
      detached: true,
      // bubblewrap started by root would map the sandbox to kuid 0 (exempt from RLIMIT_NPROC).
      ...(iso.level === 'bwrap' && iso.dropTo !== undefined ? { uid: iso.dropTo, gid: iso.dropTo } : {}),
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    const stderr: Buffer[] = [];
    let stderrBytes = 0;
    let report = '';
    let outputExceeded = false;
    let backstop = false;
    let settled = false;

    const killTree = (): void => {
      if (child.pid === undefined) return;
      if (iso.level === 'bwrap') {
        // bwrap's PID namespace dies with its init: every descendant goes with it.
        tryKill(-child.pid, 'SIGKILL');
      } else {
        tryKill(child.pid, 'SIGTERM'); // the supervisor kills and reaps its descendants
        setTimeout(() => child.pid !== undefined && tryKill(-child.pid, 'SIGKILL'), 2000).unref();
      }
    };
    const backstopTimer = setTimeout(() => {
      backstop = true;
      killTree();
    }, spec.limits.wallMs + 5000);

    child.stdout.on('data', (chunk: Buffer) => {
      if (outputExceeded) return;
      stdoutBytes += chunk.length;
      if (stdoutBytes > spec.limits.outputBytes) {
        outputExceeded = true;
        stdout.length = 0; // drop what we hold: the verdict is OLE whatever it said
        killTree();
        return;
      }
      stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderrBytes < STDERR_CAP) stderr.push(chunk.subarray(0, STDERR_CAP - stderrBytes));
      stderrBytes += chunk.length;
    });
    const reportStream = child.stdio[3];
    reportStream?.on('data', (chunk: Buffer) => {
      report += chunk.toString('utf8');
    });
    reportStream?.on('error', () => undefined);
    child.stdin.on('error', () => undefined); // EPIPE: the program did not read its input
    child.stdin.end(spec.stdin);

    const finish = (exitCode: number | null, exitSignal: NodeJS.Signals | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(backstopTimer);
      const err = Buffer.concat(stderr).toString('utf8');
      const rep = parseReport(report);
      if (!rep && !backstop && !outputExceeded && /^bwrap: /mu.test(err)) {
        reject(new HarnessError(`sandbox failed to start: ${err.split('\n')[0]}`));
        return;
      }
      if (rep && (rep.exec_errno !== 0 || (rep.stage ?? 0) !== 0)) {
        const stage = SETUP_STAGES[rep.stage ?? 4] ?? 'executing';
        reject(new HarnessError(`sandbox failed ${stage} ${spec.argv[0]}: errno ${rep.exec_errno}`));
        return;
      }
      resolve({
        exitCode: rep ? (rep.exit >= 0 ? rep.exit : null) : exitCode,
        signal: rep ? (rep.signal > 0 ? signalName(rep.signal) : null) : (exitSignal ?? (exitCode !== 0 ? 'supervisor killed' : null)),
        wallTimeout: backstop || (rep ? rep.wall_timeout === 1 : false),
        outputExceeded,
        cpuMs: rep ? Math.round((rep.utime_us + rep.stime_us) / 1000) : 0,
        wallMs: rep ? rep.wall_ms : Date.now() - started,
        peakMemoryKb: rep ? rep.maxrss_kb : 0,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: err,
        reported: rep !== undefined,
      });
    };
    child.on('error', (cause) => {
      clearTimeout(backstopTimer);
      if (!settled) {
        settled = true;
        reject(new HarnessError(`cannot spawn the sandbox (${argv[0]}): ${cause.message}`, { cause }));
      }
    });
    child.on('close', (code, sig) => finish(code, sig));
    child.on('exit', (code, sig) => {
      // A descendant that escaped the supervisor may hold our pipes open: do not wait forever.
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        reportStream?.destroy();
        finish(code, sig);
      }, 1500).unref();
    });
  });
}

function tryKill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}
