/**
 * Keeps one compile-server JVM warm: starts it on demand, recycles it after N compilations
 * or when its heap stays high (the replacement starts at once, in the background, while the
 * old one finishes its in-flight work), restarts it when it dies and retries the requests
 * that were in flight once on the new one.
 */
import { HarnessError } from '../../core/errors.ts';
import { loadScale } from '../load.ts';
import { ensureServerBuilt } from './build.ts';
import { CompileServerProcess, ServerDied, type ServerReply } from './server-process.ts';

/** Settings of the warm pool; all required here, defaults live in createKotlinCompiler. */
export interface WarmPoolOptions {
  /** Compilations one JVM runs at once. */
  threads: number;
  /** -Xmx of the JVM, in MiB. */
  maxHeapMb: number;
  /** Compilations after which a JVM is replaced. */
  recycleAfter: number;
  /** Heap in use (after a GC) above which a JVM is replaced, in MiB. */
  recycleHeapMb: number;
  /** Compilations a JVM runs on itself before taking requests (JIT warm-up). */
  warmUps: number;
  /** Time one JVM may take to start and warm up on an idle machine (stretched by the load). */
  startTimeoutMs: number;
}

/** The server could not be started at all: the caller falls back to cold `kotlinc`. */
export class ServerStartFailed extends HarnessError {
  override name = 'ServerStartFailed';
}

/** The server died under one request twice (killed by a neighbour's limit, crashed): the caller compiles it cold. */
export class ServerDiedTwice extends HarnessError {
  override name = 'ServerDiedTwice';
}

/** A warm compilation's outcome. */
export type WarmOutcome = (ServerReply & { timedOut: false; retried: boolean; pid: number | undefined }) | { timedOut: true };

/** Counters that tests and `polyeval doctor` can read. */
export interface WarmPoolStats {
  serversStarted: number;
  restartsAfterDeath: number;
  recycles: number;
  /** Requests sent again to a new server after theirs died under them. */
  retries: number;
  currentPid: number | undefined;
  /** Requests the current server is working on. */
  inFlight: number;
}

export class WarmServerPool {
  private current: CompileServerProcess | undefined;
  private readonly live = new Set<CompileServerProcess>();
  private readonly counters = { serversStarted: 0, restartsAfterDeath: 0, recycles: 0, retries: 0 };
  private classDir: string | undefined;
  private closed = false;

  constructor(private readonly opts: WarmPoolOptions) {}

  /** Builds the server if needed and starts a JVM in the background. */
  async prestart(): Promise<void> {
    const server = await this.server();
    server.hold();
    try {
      await server.ready;
    } catch (cause) {
      throw new ServerStartFailed((cause as Error).message, { cause });
    } finally {
      server.release();
    }
  }

  /**
   * Compiles with kotlinc arguments on the warm server.
   * @throws ServerStartFailed when no server can be started; ServerDiedTwice when the server
   *   dies under this request twice.
   */
  async compile(args: readonly string[], timeoutMs: number): Promise<WarmOutcome> {
    for (let attempt = 0; ; attempt++) {
      const server = await this.server();
      server.hold();
      let timedOut = false;
      let timer: NodeJS.Timeout | undefined;
      try {
        try {
          await server.ready;
        } catch (cause) {
          // Killed before it was ready (e.g. by another request's timeout) is a death, retried below.
          if (cause instanceof ServerDied && !cause.startFailure && attempt === 0) throw cause;
          throw new ServerStartFailed((cause as Error).message, { cause });
        }
        // The limit covers the compilation only, never the JVM's start-up. CPU time decides
        // (a busy machine makes a compilation slower, not wrong); the wall clock is only the
        // safety net against a compiler that never ends, stretched by the load.
        timer = setTimeout(
          () => {
            timedOut = true;
            server.kill(); // a compiler thread cannot be stopped safely; the others on it are retried
          },
          Math.round(timeoutMs * loadScale(this.opts.threads)),
        );
        const reply = await server.compile(args);
        this.afterReply(server, reply);
        if (reply.cpuMs > timeoutMs) return { timedOut: true };
        return { ...reply, timedOut: false, retried: attempt > 0, pid: server.pid };
      } catch (error) {
        if (timedOut) return { timedOut: true };
        if (!(error instanceof ServerDied)) throw error;
        if (attempt >= 1) throw new ServerDiedTwice(`the Kotlin compile server died twice under one request: ${error.message}`, { cause: error });
        this.counters.retries += 1;
      } finally {
        clearTimeout(timer);
        server.release();
      }
    }
  }

  /** Counters and the current JVM's pid. */
  stats(): WarmPoolStats {
    const current = this.current?.usable ? this.current : undefined;
    return { ...this.counters, currentPid: current?.pid, inFlight: current?.inFlight ?? 0 };
  }

  /** Retires every JVM, waiting for in-flight work; kills any that has not exited after `graceMs`. */
  async close(graceMs = 10_000): Promise<void> {
    this.closed = true;
    this.current = undefined;
    const servers = [...this.live];
    for (const server of servers) server.retire(true);
    const timer = setTimeout(() => servers.forEach((s) => s.kill()), graceMs);
    timer.unref();
    await Promise.all(servers.map((s) => s.exited));
    clearTimeout(timer);
  }

  private async server(): Promise<CompileServerProcess> {
    if (this.closed) throw new HarnessError('the Kotlin compiler is closed');
    const current = this.current;
    if (current?.usable) {
      if (current.sent >= this.opts.recycleAfter) this.recycle(current);
    } else {
      if (current) this.counters.restartsAfterDeath += 1;
      await this.spawn();
    }
    if (!this.current) throw new HarnessError('the Kotlin compiler is closed');
    return this.current;
  }

  private afterReply(server: CompileServerProcess, reply: ServerReply): void {
    if (server !== this.current) return;
    const heapHigh = reply.heapMb > this.opts.recycleHeapMb;
    if (heapHigh || server.sent >= this.opts.recycleAfter || reply.exitCode === 'OOM_ERROR') this.recycle(server);
  }

  /** Retires `server` and starts its replacement now, so the next request finds it warm. */
  private recycle(server: CompileServerProcess): void {
    this.counters.recycles += 1;
    server.retire();
    this.current = this.launch();
  }

  private async spawn(): Promise<void> {
    // Asked on every start, not once: it marks the build used (so no other install's run prunes
    // it during a long run) and rebuilds it if it went missing.
    try {
      this.classDir = await ensureServerBuilt();
    } catch (cause) {
      throw new ServerStartFailed(`cannot build the compile server: ${(cause as Error).message}`, { cause });
    }
    if (!this.closed && !this.current?.usable) this.current = this.launch();
  }

  private launch(): CompileServerProcess {
    if (!this.classDir) throw new HarnessError('compile server launched before it was built');
    const server = new CompileServerProcess({
      classDir: this.classDir,
      threads: this.opts.threads,
      maxHeapMb: this.opts.maxHeapMb,
      heapRecheckMb: this.opts.recycleHeapMb,
      warmUps: this.opts.warmUps,
      startTimeoutMs: this.opts.startTimeoutMs,
    });
    this.counters.serversStarted += 1;
    this.live.add(server);
    void server.exited.then(() => this.live.delete(server));
    return server;
  }
}
