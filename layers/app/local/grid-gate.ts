/**
 * A sweep's bound on items in flight across its whole grid (`--concurrency` of a sweep): an
 * item holds a permit from the start of its model call until its record is written, whatever
 * cell it belongs to. Permits are served in FIFO order by one p-limit queue.
 *
 * The sweep also asks it whether the grid has room to spare (`whenIdle`): a new cell starts
 * only when no item of the running cells waits for a permit and one is free, so cells start
 * as the running ones stop using the whole bound (a slow model's cells beside a fast one's,
 * the next cell while the last items of the previous one are scored).
 */
import pLimit, { type LimitFunction } from 'p-limit';
import type { ItemGate } from '#core/run/index.ts';

export class GridGate implements ItemGate {
  readonly #limit: LimitFunction;
  #waiters: (() => void)[] = [];

  /** `size`: items in flight across the grid; Infinity for no bound beyond the runs' own. */
  constructor(readonly size: number) {
    this.#limit = pLimit(Number.isFinite(size) ? Math.max(1, size) : Number.POSITIVE_INFINITY);
  }

  /** Items holding a permit. */
  get active(): number {
    return this.#limit.activeCount;
  }

  acquire(): Promise<() => void> {
    return new Promise((acquired) => {
      void this.#limit(
        () =>
          new Promise<void>((done) => {
            let given = false;
            acquired(() => {
              if (given) return;
              given = true;
              done();
              this.#changed();
            });
          }),
      );
      this.#changed();
    });
  }

  /** True when a permit is free and nobody waits for one. */
  get idle(): boolean {
    return this.#limit.pendingCount === 0 && this.#limit.activeCount < this.#limit.concurrency;
  }

  /** Resolves once the grid is idle (at once when it is). */
  async whenIdle(): Promise<void> {
    while (!this.idle) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  /** p-limit updates its counts asynchronously: look again once they have settled. */
  #changed(): void {
    if (this.#waiters.length === 0) return;
    setImmediate(() => {
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const wake of waiters) wake();
    });
  }
}
