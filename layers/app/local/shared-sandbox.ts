/**
 * One sandbox executor for several runs (a sweep), so the Kotlin compile server stays warm,
 * identical programs compile once (one compile cache) and every run shares one limit on
 * executions in flight (the executor's own: cores, or `--jobs`).
 *
 * Toolchain options (a Kotlin language version) travel with each job to its compile, so runs
 * with different options use the one executor at the same time.
 */
import type { SandboxExecutor } from '#sandbox/index.ts';

/** Starts the executor (the real sandbox by default; tests count calls). */
export type ExecutorFactory = () => Promise<SandboxExecutor>;

const sandboxFactory: ExecutorFactory = async () => (await import('#sandbox/index.ts')).createSandboxExecutor();

export class SharedSandbox {
  #current: Promise<SandboxExecutor> | undefined;

  constructor(private readonly factory: ExecutorFactory = sandboxFactory) {}

  /** The shared executor, started on first use; a start that failed is retried by the next caller. */
  async get(): Promise<SandboxExecutor> {
    const current = (this.#current ??= this.factory());
    try {
      return await current;
    } catch (error) {
      if (this.#current === current) this.#current = undefined;
      throw error;
    }
  }

  async close(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    if (current) await (await current).close();
  }
}
