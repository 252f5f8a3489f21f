/**
 * A long-lived sandboxed process that serves requests over its stdin/stdout (the Python
 * syntax checker): the same isolation, supervisor and limits as one-shot runs
 * (sandbox-process.ts), only the pipes stay open. Its CPU limit is for its whole life, so
 * the caller recycles it; whatever ends it (a limit, a crash, `kill`) resolves `exited`.
 *
 * Lifetime rules: it never keeps Node alive while idle (the caller `ref`s it while waiting
 * on an answer), it dies with its parent (bubblewrap's --die-with-parent, and a kill on
 * Node's exit), and `kill` takes its whole process group.
 */
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import type { IsolationConfig } from './isolation.ts';
import { sandboxCommand, type SandboxSpec } from './sandbox-process.ts';

/** A running sandboxed service. */
export interface SandboxService {
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** Resolves once the process has ended, for whatever reason. */
  readonly exited: Promise<void>;
  /** Keeps (true) or stops keeping (false) Node's event loop alive for this process. */
  ref(wanted: boolean): void;
  kill(): void;
  /**
   * Asks the supervisor to end it (SIGTERM: it kills and reaps every descendant, including
   * any that left the process group, which `kill` cannot reach without bubblewrap), then `kill`s.
   */
  terminate(): void;
}

/** Starts `spec.argv` in the sandbox with its pipes kept open (`spec.stdin` is ignored). */
export function startSandboxService(iso: IsolationConfig, supervisor: string, spec: SandboxSpec): SandboxService {
  const argv = sandboxCommand(iso, supervisor, spec);
  const child = spawn(argv[0] as string, argv.slice(1), {
    cwd: spec.workDir,
    env: spec.env ?? {},
    detached: true,
    ...(iso.level === 'bwrap' && iso.dropTo !== undefined ? { uid: iso.dropTo, gid: iso.dropTo } : {}),
    // fd 3 carries the supervisor's report, of no use here: it and stderr are drained, never held.
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
  });
  const report = child.stdio[3] as Readable | null;
  report?.on('error', () => undefined).resume();
  child.stderr.resume();
  child.stdin.on('error', () => undefined); // EPIPE after it died: seen through `exited`
  const killGroup = (): void => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.once('exit', killGroup);
  const exited = new Promise<void>((resolve) => {
    child.once('error', () => resolve());
    child.once('close', () => {
      process.removeListener('exit', killGroup);
      resolve();
    });
  });
  const ref = (wanted: boolean): void => {
    for (const handle of [
      child,
      child.stdout as unknown as Socket,
      child.stderr as unknown as Socket,
      child.stdin as unknown as Socket,
      report as unknown as Socket | null,
    ]) {
      if (wanted) handle?.ref();
      else handle?.unref();
    }
  };
  ref(false);
  const terminate = (): void => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    setTimeout(killGroup, 30_000).unref();
  };
  return { stdin: child.stdin, stdout: child.stdout, exited, ref, kill: killGroup, terminate };
}
