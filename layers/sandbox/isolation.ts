/**
 * Which isolation this machine offers (reported by `polyeval doctor`, recorded per item):
 * - `bwrap`: bubblewrap with user, PID, network, IPC and UTS namespaces, a read-only view
 *   of /usr and a few /etc files, a private /tmp, plus the supervisor's rlimits;
 * - `rlimits`: the supervisor's rlimits, process-group and descendant cleanup only.
 * On top of either level the supervisor confines the program where the kernel allows it
 * (see pe-supervisor.c): a seccomp filter (no sockets, no ptrace, no kill(-1)) and a
 * Landlock ruleset (reads only system directories and its own files, writes only its
 * working directory, no other process's /proc). What the result still exposes — credentials,
 * files, network — is computed by {@link exposures}; polyeval refuses model-written code on
 * a machine where anything is exposed unless the user trusts it (`--trust-generated-code`).
 * When running as root, sandboxed processes run as uid/gid 65534 in both levels: bubblewrap
 * started by root would map the sandbox to kuid 0, which the kernel exempts from
 * RLIMIT_NPROC (a fork bomb would be unbounded), so Node starts bubblewrap as 65534 (spawn's
 * uid/gid options, which also clear supplementary groups); at the rlimits level the
 * supervisor stays root and drops to 65534 itself in the program's process, so the program
 * cannot signal its supervisor. No extra exec (such as setpriv) sits in the chain.
 */
import { execFile } from 'node:child_process';
import { lstatSync, readlinkSync, statSync } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import { promisify } from 'node:util';
import { HarnessError } from '#core/errors.ts';

const run = promisify(execFile);

/** The unprivileged uid/gid sandboxed code runs as when the harness runs as root. */
export const SANDBOX_UID = 65534;

/** Where bubblewrap is looked for unless POLYEVAL_BWRAP names another path (or `none`). */
export const DEFAULT_BWRAP = '/usr/bin/bwrap';

export type IsolationLevel = 'bwrap' | 'rlimits';

/** What a sandboxed program could reach that it must not. */
export type Exposure = 'credentials' | 'files' | 'network';

/** What the supervisor can add on top of a level (from `pe-supervisor --probe`). */
export interface Confinement {
  seccomp: boolean;
  /** Landlock ABI version, 0 when the kernel has none. */
  landlock: number;
}

export const NO_CONFINEMENT: Confinement = { seccomp: false, landlock: 0 };

/** What each level does NOT isolate by itself (doctor lists it; docs/sandbox.md explains each level). */
export const ISOLATION_GAPS: Readonly<Record<IsolationLevel, readonly string[]>> = {
  bwrap: [],
  rlimits: [
    'network: programs can open connections, to loopback services included',
    'file system: programs can read what the sandbox uid can read and write world-writable directories such as /tmp',
    'other sandboxes: concurrent programs share the sandbox uid (signals such as kill(-1) reach them, RLIMIT_NPROC counts them all)',
  ],
};

/** Why each exposure exists, in the words doctor and the refusal message use. */
export const EXPOSURE_REASONS: Readonly<Record<Exposure, string>> = {
  credentials:
    'credentials: programs run as the harness uid without namespaces, so they can read /proc/<pid>/environ of the harness and its parents (AWS keys, tokens), credential files such as ~/.aws/credentials, or the cloud credential endpoints',
  files: 'files: programs can read every file this uid can read (datasets with expected outputs included) and write outside their working directory',
  network: 'network: programs can open sockets, to loopback services and the credential endpoints included',
};

export type ConfineChoice = 'auto' | 'seccomp' | 'none';

/** What `detectIsolation` found. */
export interface IsolationReport {
  level: IsolationLevel;
  bwrap: boolean;
  unprivilegedUid: boolean;
  confinement: Confinement;
  /** What programs could still reach at this level (empty: nothing). */
  exposures: Exposure[];
  /** `level+seccomp+landlock`, as recorded with every item. */
  label: string;
  details: string[];
}

/** Resolved isolation settings the sandbox runner needs. */
export interface IsolationConfig {
  level: IsolationLevel;
  bwrapPath: string;
  /** The uid/gid sandboxed code runs as, when the harness is root and must drop to it. */
  dropTo: number | undefined;
  /** The confinement the supervisor applies to every program (fail closed when it cannot). */
  confine: Confinement;
}

/** What the caller may choose; the defaults come from POLYEVAL_BWRAP / POLYEVAL_CONFINE. */
export interface IsolationOptions {
  /** Path of bubblewrap, or 'none' (default: POLYEVAL_BWRAP, else /usr/bin/bwrap). */
  bwrapPath?: string;
  /** 'auto' applies what the kernel offers; 'seccomp' only the filter (as on a kernel without Landlock); 'none' neither (default: POLYEVAL_CONFINE, else auto). */
  confine?: ConfineChoice;
  /** The supervisor binary to probe for confinement (none: no confinement is assumed). */
  supervisor?: string;
}

async function executable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether the harness runs as root (and must drop privileges for sandboxed code). */
export function runningAsRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * Whether this process is non-dumpable, so a process of the same uid cannot read its
 * /proc/<pid>/environ or memory: the kernel then shows its /proc files as owned by root.
 * Executor images make node execute-only (mode 0711), which makes every node process of
 * the unprivileged Lambda user non-dumpable (the kernel's rule for unreadable binaries).
 */
export function harnessNonDumpable(): boolean {
  if (runningAsRoot()) return false;
  try {
    return statSync('/proc/self/environ').uid === 0;
  } catch {
    return false;
  }
}

/** The bubblewrap path and confinement choice from the options, else the environment. */
export function isolationSettings(options: IsolationOptions = {}, env: NodeJS.ProcessEnv = process.env): { bwrapPath: string; confine: ConfineChoice } {
  const bwrapPath = options.bwrapPath ?? (env.POLYEVAL_BWRAP || DEFAULT_BWRAP);
  const fromEnv = env.POLYEVAL_CONFINE;
  const confine = options.confine ?? (fromEnv === 'none' || fromEnv === 'seccomp' ? fromEnv : 'auto');
  return { bwrapPath, confine };
}

/** Asks the supervisor what the kernel lets it apply (`pe-supervisor --probe`). */
export async function probeConfinement(supervisor: string): Promise<Confinement> {
  try {
    const { stdout } = await run(supervisor, ['--probe'], { timeout: 20_000, env: {} });
    const seccomp = /seccomp=1/u.test(stdout);
    const landlock = Number(/landlock=(\d+)/u.exec(stdout)?.[1] ?? 0);
    return { seccomp, landlock };
  } catch {
    return NO_CONFINEMENT;
  }
}

/**
 * What programs could still reach. bubblewrap's namespaces keep all three away. Without
 * them: the network is closed only by seccomp; files only by Landlock; credentials need
 * both closed network (credential endpoints) and no way into another process's
 * /proc/<pid>/environ: Landlock, a different uid (root drops to 65534), or a non-dumpable
 * harness (the executor images; credential files of the uid are then the files gap).
 */
export function exposures(level: IsolationLevel, confine: Confinement, harness: { root: boolean; nonDumpable: boolean }): Exposure[] {
  if (level === 'bwrap') return [];
  const out: Exposure[] = [];
  const landlock = confine.landlock >= 1;
  if (!confine.seccomp || !(landlock || harness.root || harness.nonDumpable)) out.push('credentials');
  if (!landlock) out.push('files');
  if (!confine.seccomp) out.push('network');
  return out;
}

/** `rlimits+seccomp+landlock`: the level and the confinement actually applied. */
export function isolationLabel(level: IsolationLevel, confine: Confinement): string {
  return [level, ...(confine.seccomp ? ['seccomp'] : []), ...(confine.landlock >= 1 ? ['landlock'] : [])].join('+');
}

async function bwrapWorks(bwrapPath: string, details: string[]): Promise<boolean> {
  if (bwrapPath === 'none' || !(await executable(bwrapPath))) {
    details.push(`bubblewrap not installed (${bwrapPath}): install it (apt-get install bubblewrap) for namespaces`);
    return false;
  }
  try {
    const argv = ['--unshare-all', '--die-with-parent', '--ro-bind', '/usr', '/usr', ...libLinks(), '--proc', '/proc', '--dev', '/dev', '/usr/bin/true'];
    const drop = runningAsRoot() ? { uid: SANDBOX_UID, gid: SANDBOX_UID, cwd: '/' } : {};
    await run(bwrapPath, argv, { timeout: 20_000, env: {}, ...drop });
    details.push('bubblewrap works: user, PID, network, IPC and UTS namespaces, read-only /usr');
    return true;
  } catch (cause) {
    details.push(`bubblewrap is installed but cannot create namespaces here: ${String(cause).split('\n')[0]}`);
    return false;
  }
}

/**
 * Probes the machine: is bubblewrap installed, and can it create its namespaces here
 * (containers and Lambda often forbid it)? What can the supervisor add?
 * @example
 * const { level, exposures, details } = await detectIsolation({ supervisor });
 */
export async function detectIsolation(options: IsolationOptions = {}, requested: 'auto' | IsolationLevel = 'auto'): Promise<IsolationReport> {
  const settings = isolationSettings(options);
  const details: string[] = [];
  const root = runningAsRoot();
  if (root) details.push(`running as root: sandboxed code runs as uid ${SANDBOX_UID}`);
  const bwrap = await bwrapWorks(settings.bwrapPath, details);
  const level: IsolationLevel = requested === 'auto' ? (bwrap ? 'bwrap' : 'rlimits') : requested;
  const available = settings.confine === 'none' || !options.supervisor ? NO_CONFINEMENT : await probeConfinement(options.supervisor);
  const probed = settings.confine === 'seccomp' ? { ...available, landlock: 0 } : available;
  if (settings.confine !== 'auto') details.push(`confinement limited by POLYEVAL_CONFINE=${settings.confine}`);
  details.push(`seccomp filter: ${probed.seccomp ? 'yes' : 'no'}; Landlock: ${probed.landlock >= 1 ? `ABI ${probed.landlock}` : 'no'}`);
  const nonDumpable = harnessNonDumpable();
  const found = exposures(level, probed, { root, nonDumpable });
  const label = isolationLabel(level, probed);
  details.push(`isolation level: ${label}`);
  if (level === 'rlimits') for (const gap of ISOLATION_GAPS.rlimits) details.push(`not isolated by the level alone: ${gap}`);
  for (const gap of found) details.push(`EXPOSED to programs: ${EXPOSURE_REASONS[gap]}`);
  if (found.length === 0) details.push('programs can reach no credentials, no files outside their own and no network');
  return { level, bwrap, unprivilegedUid: true, confinement: probed, exposures: found, label, details };
}

let hostLinks: readonly string[] | undefined;

/**
 * bwrap arguments recreating /bin, /lib, /lib64, /sbin as on the host (merged-/usr symlinks or
 * binds). Read once per process: they are part of every sandboxed command line, and the host's
 * top-level layout does not change under a running harness.
 */
export function libLinks(): string[] {
  hostLinks ??= readLibLinks();
  return [...hostLinks];
}

function readLibLinks(): string[] {
  const args: string[] = [];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib64', '/lib32']) {
    try {
      const stat = lstatSync(dir);
      // Merged-/usr systems (Debian ≥ 12, Ubuntu ≥ 20.04, Amazon Linux 2023) link these into /usr.
      if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
      else if (stat.isDirectory()) args.push('--ro-bind', dir, dir);
    } catch {
      // absent on this machine
    }
  }
  return args;
}

/** Resolves an isolation request ('auto' picks the strongest available). */
export async function resolveIsolation(
  requested: 'auto' | IsolationLevel,
  options: IsolationOptions = {},
): Promise<IsolationConfig & { report: IsolationReport }> {
  const report = await detectIsolation(options, requested);
  if (report.level === 'bwrap' && !report.bwrap) {
    throw new HarnessError(`bubblewrap isolation requested but unavailable: ${report.details.join('; ')}`);
  }
  const { bwrapPath } = isolationSettings(options);
  return { level: report.level, bwrapPath, dropTo: runningAsRoot() ? SANDBOX_UID : undefined, confine: report.confinement, report };
}
