/**
 * Which isolation this machine offers (reported by `polyeval doctor`):
 * - `bwrap`: bubblewrap with user, PID, network, IPC and UTS namespaces, a read-only view
 *   of /usr and a few /etc files, a private /tmp, plus the supervisor's rlimits;
 * - `rlimits`: the supervisor's rlimits, process-group and descendant cleanup only.
 * When running as root, sandboxed processes run as uid/gid 65534 in both levels: bubblewrap
 * started by root would map the sandbox to kuid 0, which the kernel exempts from
 * RLIMIT_NPROC (a fork bomb would be unbounded), so Node starts bubblewrap as 65534 (spawn's
 * uid/gid options, which also clear supplementary groups); at the rlimits level the
 * supervisor stays root and drops to 65534 itself in the program's process, so the program
 * cannot signal its supervisor. No extra exec (such as setpriv) sits in the chain.
 */
import { execFile } from 'node:child_process';
import { lstatSync, readlinkSync } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import { promisify } from 'node:util';
import { HarnessError } from '#core/errors.ts';

const run = promisify(execFile);

/** The unprivileged uid/gid sandboxed code runs as when the harness runs as root. */
export const SANDBOX_UID = 65534;

export type IsolationLevel = 'bwrap' | 'rlimits';

/** What each level does NOT isolate (doctor lists it; the README explains each level). */
export const ISOLATION_GAPS: Readonly<Record<IsolationLevel, readonly string[]>> = {
  bwrap: [],
  rlimits: [
    'network: programs can open connections, to loopback services included',
    'file system: programs can read what the sandbox uid can read and write world-writable directories such as /tmp',
    'other sandboxes: concurrent programs share the sandbox uid (signals such as kill(-1) reach them, RLIMIT_NPROC counts them all)',
  ],
};

/** What `detectIsolation` found. */
export interface IsolationReport {
  level: IsolationLevel;
  bwrap: boolean;
  unprivilegedUid: boolean;
  details: string[];
}

/** Resolved isolation settings the sandbox runner needs. */
export interface IsolationConfig {
  level: IsolationLevel;
  bwrapPath: string;
  /** The uid/gid sandboxed code runs as, when the harness is root and must drop to it. */
  dropTo: number | undefined;
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
 * Probes the machine: is bubblewrap installed, and can it create its namespaces here
 * (containers often forbid it)?
 * @example
 * const { level, details } = await detectIsolation(); // level: 'bwrap' | 'rlimits'
 */
export async function detectIsolation(): Promise<IsolationReport> {
  const details: string[] = [];
  const root = runningAsRoot();
  const unprivilegedUid = true; // root drops to SANDBOX_UID; anyone else already is unprivileged
  if (root) details.push(`running as root: sandboxed code runs as uid ${SANDBOX_UID}`);
  const bwrapPath = '/usr/bin/bwrap';
  let bwrap = false;
  if (!(await executable(bwrapPath))) {
    details.push('bubblewrap not installed (/usr/bin/bwrap): install it (apt-get install bubblewrap) for namespaces');
  } else {
    try {
      const argv = [bwrapPath, '--unshare-all', '--die-with-parent', '--ro-bind', '/usr', '/usr', ...libLinks(), '--proc', '/proc', '--dev', '/dev', '/usr/bin/true'];
      const drop = root ? { uid: SANDBOX_UID, gid: SANDBOX_UID, cwd: '/' } : {};
      await run(argv[0] as string, argv.slice(1), { timeout: 20_000, env: {}, ...drop });
      bwrap = true;
      details.push('bubblewrap works: user, PID, network, IPC and UTS namespaces, read-only /usr');
    } catch (cause) {
      details.push(`bubblewrap is installed but cannot create namespaces here: ${String(cause).split('\n')[0]}`);
    }
  }
  const level: IsolationLevel = bwrap ? 'bwrap' : 'rlimits';
  details.push(`isolation level: ${level}`);
  for (const gap of ISOLATION_GAPS[level]) details.push(`not isolated at this level: ${gap}`);
  return { level, bwrap, unprivilegedUid, details };
}

/** bwrap arguments recreating /bin, /lib, /lib64, /sbin as on the host (merged-/usr symlinks or binds). */
export function libLinks(): string[] {
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
export async function resolveIsolation(requested: 'auto' | IsolationLevel): Promise<IsolationConfig> {
  const report = await detectIsolation();
  const level: IsolationLevel = requested === 'auto' ? report.level : requested;
  if (level === 'bwrap' && !report.bwrap) {
    throw new HarnessError(`bubblewrap isolation requested but unavailable: ${report.details.join('; ')}`);
  }
  return { level, bwrapPath: '/usr/bin/bwrap', dropTo: runningAsRoot() ? SANDBOX_UID : undefined };
}
