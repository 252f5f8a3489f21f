/**
 * A counting semaphore: at most `permits` holders at once, waiters served in FIFO order.
 * Each provider owns one, so its calls in flight never exceed its rate limit.
 */
export class Semaphore {
  #available: number;
  readonly #waiters: (() => void)[] = [];

  constructor(readonly permits: number) {
    this.#available = permits;
  }

  /** Runs `fn` while holding one permit; the permit is released however `fn` ends. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.#acquire();
    try {
      return await fn();
    } finally {
      this.#release();
    }
  }

  #acquire(): Promise<void> {
    if (this.#available > 0) {
      this.#available -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #release(): void {
    const next = this.#waiters.shift();
    // The permit passes straight to the next waiter, so a newcomer cannot overtake it.
    if (next) next();
    else this.#available += 1;
  }
}
