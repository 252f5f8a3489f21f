/**
 * One sandbox executor for several runs (a sweep), so the Kotlin compile server stays warm,
 * identical programs compile once (one compile cache) and every run shares one limit on
 * executions in flight (the executor's own: cores, or `--jobs`).
 *
 * Kotlin's compiler flags (`-language-version`) are process-wide in the sandbox, so runs that
 * need other flags cannot use the executor at the same time: a run leases it for its flags
 * key, runs with the same key share it, and a run with another key waits until every lease
 * of the current key is given back; the executor is then closed and one with the new flags
 * started. While a run waits for other flags, new leases of the current key wait too, so it
 * is not starved. (Remove the keying once Kotlin flags are a per-job option of the executor.)
 */
import type { SandboxExecutor } from '#sandbox/index.ts';
import { kotlinFlags } from '../shared/kotlin-flags.ts';

/** A run's use of the shared executor; `release` gives it back (once). */
export interface SandboxLease {
  executor: SandboxExecutor;
  release(): void;
}

/** Starts an executor with these Kotlin flags (the real sandbox by default; tests count calls). */
export type ExecutorFactory = (kotlinFlags: string[]) => Promise<SandboxExecutor>;

const sandboxFactory: ExecutorFactory = async (flags) => (await import('#sandbox/index.ts')).createSandboxExecutor({ kotlinFlags: flags });

export class SharedSandbox {
  #current: { key: string; executor: Promise<SandboxExecutor>; leases: number } | undefined;
  /** Runs waiting for the key in use to change or for its leases to end, in arrival order. */
  readonly #queue: { key: string; wake: () => void }[] = [];

  constructor(private readonly factory: ExecutorFactory = sandboxFactory) {}

  /** The flags key currently held by running leases, if any. */
  get activeKey(): string | undefined {
    return this.#current && this.#current.leases > 0 ? this.#current.key : undefined;
  }

  /** Leases the executor for runs with this Kotlin language version (none = kotlinc's default). */
  async lease(kotlinLanguageVersion: string | undefined): Promise<SandboxLease> {
    const key = kotlinLanguageVersion ?? '';
    while (!this.#mayLease(key)) await new Promise<void>((wake) => this.#queue.push({ key, wake }));
    if (this.#current?.key !== key) {
      // No lease holds the previous executor (#mayLease): close it, then start the new one.
      // The new key is in place at once, so runs of other keys arriving meanwhile wait.
      const previous = this.#current;
      const flags = kotlinFlags(kotlinLanguageVersion);
      const executor = (async () => {
        if (previous) await (await previous.executor).close();
        return this.factory(flags);
      })();
      this.#current = { key, executor, leases: 0 };
    }
    const current = this.#current;
    current.leases += 1;
    let released = false;
    try {
      const executor = await current.executor;
      return {
        executor,
        release: () => {
          if (released) return;
          released = true;
          current.leases -= 1;
          this.#wakeAll();
        },
      };
    } catch (error) {
      current.leases -= 1;
      if (this.#current === current) this.#current = undefined;
      this.#wakeAll();
      throw error;
    }
  }

  /** Same key as the running leases and nobody waiting for another key; or no lease running. */
  #mayLease(key: string): boolean {
    const current = this.#current;
    if (!current || current.leases === 0) return this.#queue.length === 0 || this.#queue[0]?.key === key;
    return current.key === key && !this.#queue.some((w) => w.key !== key);
  }

  #wakeAll(): void {
    const queue = this.#queue.splice(0);
    for (const w of queue) w.wake();
  }

  async close(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    if (current) await (await current.executor).close();
  }
}
