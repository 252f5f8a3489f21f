/**
 * One running compile-server JVM and its line protocol (see KotlinCompileServer.java).
 *
 * Lifetime rules: the JVM never keeps Node alive while idle (child and pipes are unref'd
 * unless a caller is waiting on it), and it dies with its parent (it halts on end of stdin,
 * and Node kills it on exit).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { HarnessError } from '../../core/errors.ts';
import { loadScale } from '../load.ts';
import { archiveFlags, SERVER_JVM_FLAGS, SERVER_MAIN_CLASS, serverClassPath, serverHeapFlags } from './jvm-flags.ts';
import { jdkTool, jvmEnv } from './toolchain.ts';

/** One compilation's answer from the server. */
export interface ServerReply {
  /** The compiler's ExitCode name: OK, COMPILATION_ERROR, INTERNAL_ERROR, OOM_ERROR, … */
  exitCode: string;
  /** Time inside the compiler, in milliseconds. */
  ms: number;
  /** Heap in use after the compilation (after a GC when it was high), in MiB. */
  heapMb: number;
  diagnostics: string;
  /** CPU time of the compiling thread, in milliseconds (what the compile limit charges). */
  cpuMs: number;
}

/** The server process went away while a request was in flight (or before it was ready). */
export class ServerDied extends HarnessError {
  override name = 'ServerDied';
  /** True when the server never became ready on its own (bad JVM, failed warm-up, start timeout), false when it was killed. */
  readonly startFailure: boolean;
  constructor(message: string, opts: { startFailure?: boolean; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.startFailure = opts.startFailure ?? false;
  }
}

/** How to start one server JVM. */
export interface ServerSpec {
  /** Directory of the built server (server.jar, and server.jsa when training recorded one). */
  classDir: string;
  /** Compilations the server runs at once (its thread pool size). */
  threads: number;
  /** The JVM's -Xmx, in MiB. */
  maxHeapMb: number;
  /** Heap level above which the server measures again after a GC, in MiB. */
  heapRecheckMb: number;
  /** Compilations the server runs on itself before READY (JIT warm-up; at least 1). */
  warmUps: number;
  /** How long start-up (JVM boot plus the warm-up compilations) may take on an idle machine; stretched by the load. */
  startTimeoutMs: number;
}

const STDERR_TAIL = 8192;

/** A compile-server JVM: start it, send it compilations, retire or kill it. */
export class CompileServerProcess {
  /** Resolves with the compiler version once the server has warmed up; rejects if it cannot start. */
  readonly ready: Promise<string>;
  /** Resolves when the JVM has exited, for whatever reason. */
  readonly exited: Promise<void>;
  /** Compilations sent to this server so far. */
  sent = 0;
  /** The last heap figure the server reported, in MiB. */
  lastHeapMb = 0;

  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, { resolve: (r: ServerReply) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private holds = 0;
  private alive = true;
  private retiring = false;
  private ended = false;
  private refUntilExit = false;
  private stdoutBuffer = '';
  private stderrTail = '';
  private readonly killOnExit = (): void => {
    this.child.kill('SIGKILL');
  };

  constructor(spec: ServerSpec) {
    const jvmArgs = [
      ...SERVER_JVM_FLAGS,
      ...archiveFlags(spec.classDir),
      ...serverHeapFlags(spec.maxHeapMb),
      '-cp',
      serverClassPath(spec.classDir),
      SERVER_MAIN_CLASS,
      String(spec.threads),
      '32',
      String(spec.heapRecheckMb),
      String(spec.warmUps),
    ];
    this.child = spawn(jdkTool('java'), jvmArgs, { env: jvmEnv(), cwd: tmpdir(), stdio: ['pipe', 'pipe', 'pipe'] });
    process.once('exit', this.killOnExit);
    this.exited = new Promise((resolve) => this.child.once('close', () => resolve()));

    let settleReady: { resolve: (v: string) => void; reject: (e: Error) => void } | undefined;
    this.ready = new Promise<string>((resolve, reject) => (settleReady = { resolve, reject }));
    this.ready.catch(() => undefined); // observed by callers; never an unhandled rejection here

    // A busy machine makes start-up slower, never a failure: the wait stretches with the load.
    const startLimitMs = Math.round(spec.startTimeoutMs * loadScale(1));
    const timer = setTimeout(() => {
      settleReady?.reject(new ServerDied(`compile server not ready after ${startLimitMs} ms`, { startFailure: true }));
      settleReady = undefined;
      this.kill();
    }, startLimitMs);
    timer.unref();

    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.stdoutBuffer += chunk;
      let newline: number;
      while ((newline = this.stdoutBuffer.indexOf('\n')) >= 0) {
        const line = this.stdoutBuffer.slice(0, newline).trimEnd();
        this.stdoutBuffer = this.stdoutBuffer.slice(newline + 1);
        if (line.startsWith('READY ')) {
          clearTimeout(timer);
          settleReady?.resolve(line.slice(6));
          settleReady = undefined;
        } else if (line.startsWith('FAIL ')) {
          clearTimeout(timer);
          settleReady?.reject(new ServerDied(`compile server failed to start: ${decode(line.slice(5))}`, { startFailure: true }));
          settleReady = undefined;
        } else if (line.startsWith('R ')) {
          this.onReply(line);
        }
      }
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
    });
    this.child.stdin.on('error', () => undefined); // EPIPE after the JVM died: reported via 'close'
    this.child.once('error', (error) => {
      clearTimeout(timer);
      settleReady?.reject(new ServerDied(`cannot start java: ${error.message}`, { startFailure: true, cause: error }));
      settleReady = undefined;
    });
    this.child.once('close', (code, signal) => {
      clearTimeout(timer);
      this.alive = false;
      process.removeListener('exit', this.killOnExit);
      const why = `compile server exited (${signal ?? `code ${code}`})${this.stderrTail ? `: ${this.stderrTail.trim().slice(-1000)}` : ''}`;
      // Exiting by itself before READY is a start failure; a signal means someone killed it.
      settleReady?.reject(new ServerDied(why, { startFailure: signal === null }));
      settleReady = undefined;
      for (const waiter of this.pending.values()) waiter.reject(new ServerDied(why));
      this.pending.clear();
      this.updateRef();
    });
    this.updateRef();
  }

  /** The JVM's process id (tests use it to kill the server). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** True while the JVM runs and has not been asked to retire. */
  get usable(): boolean {
    return this.alive && !this.retiring;
  }

  /** Requests sent and not yet answered. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Keeps Node's event loop alive for this server while a caller waits on it. */
  hold(): void {
    this.holds += 1;
    this.updateRef();
  }

  /** Undoes one {@link hold}. */
  release(): void {
    this.holds = Math.max(0, this.holds - 1);
    this.updateRef();
    this.maybeFinish();
  }

  /**
   * Sends one compilation (kotlinc arguments). Rejects with ServerDied if the JVM goes away
   * before answering.
   */
  compile(args: readonly string[]): Promise<ServerReply> {
    if (!this.alive || this.ended) return Promise.reject(new ServerDied('compile server is not running'));
    const id = this.nextId++;
    this.sent += 1;
    const line = `C ${id} ${args.map((a) => Buffer.from(a, 'utf8').toString('base64')).join(' ')}\n`;
    return new Promise<ServerReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.updateRef();
      this.child.stdin.write(line);
    });
  }

  /**
   * Stops taking new work; the JVM exits once no caller holds it and its in-flight requests
   * are answered. With `keepNodeAlive`, Node's event loop waits for that exit (used by close()).
   */
  retire(keepNodeAlive = false): void {
    this.retiring = true;
    this.refUntilExit ||= keepNodeAlive;
    this.updateRef();
    this.maybeFinish();
  }

  /** Kills the JVM at once; in-flight requests reject with ServerDied. */
  kill(): void {
    if (this.alive) this.child.kill('SIGKILL');
  }

  private onReply(line: string): void {
    const [, id, exitCode, ms, heapMb, diagnostics, cpuMs] = line.split(' ');
    const waiter = this.pending.get(Number(id));
    if (!waiter) return;
    this.pending.delete(Number(id));
    this.lastHeapMb = Number(heapMb);
    waiter.resolve({
      exitCode: exitCode ?? 'INTERNAL_ERROR',
      ms: Number(ms),
      heapMb: Number(heapMb),
      diagnostics: decode(diagnostics ?? ''),
      cpuMs: Number(cpuMs ?? ms),
    });
    this.updateRef();
    this.maybeFinish();
  }

  private maybeFinish(): void {
    if (this.retiring && this.alive && !this.ended && this.holds === 0 && this.pending.size === 0) {
      this.ended = true;
      this.child.stdin.end('Q\n');
    }
  }

  private updateRef(): void {
    const wanted = this.alive && (this.holds > 0 || this.pending.size > 0 || this.refUntilExit);
    const handles: { ref(): unknown; unref(): unknown }[] = [
      this.child,
      this.child.stdout as unknown as Socket,
      this.child.stderr as unknown as Socket,
      this.child.stdin as unknown as Socket,
    ];
    for (const handle of handles) {
      if (wanted) handle.ref();
      else handle.unref();
    }
  }
}

function decode(b64: string): string {
  return Buffer.from(b64, 'base64').toString('utf8');
}
