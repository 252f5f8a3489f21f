/**
 * Account and reserved concurrency. An account has 1,000 concurrent executions per Region by
 * default, shared by every function; a function with reserved concurrency has that many for
 * itself and never more, and "Lambda requires at least 100 unreserved concurrency units" for
 * the others (you can reserve up to the unreserved concurrency minus 100). An invocation
 * beyond what its pool has left is throttled (429, `TooManyRequestsException`, reason
 * `ReservedFunctionConcurrentInvocationLimitExceeded` or `ConcurrentInvocationLimitExceeded`).
 * Not simulated, because the simulated run never comes near them: a function's scaling rate
 * ("For each function, 1,000 execution environments every 10 seconds"; the simulation's peak is
 * about a hundred) and the 10 requests a second per environment; new accounts, which "have
 * reduced concurrency and memory quotas" until AWS raises them (an account below 600 cannot
 * reserve our five runners' 500: concurrency-budget.ts).
 * Pages: "Lambda quotas", https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html;
 * "Configuring reserved concurrency", https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html;
 * "Lambda scaling behavior", https://docs.aws.amazon.com/lambda/latest/dg/scaling-behavior.html
 */

export const ACCOUNT_CONCURRENCY = 1000;
export const MIN_UNRESERVED = 100;

/** Concurrent executions in flight, per function, against the account's pools. */
export class ConcurrencyPools {
  readonly #reserved = new Map<string, number>();
  readonly #inFlight = new Map<string, number>();
  #unreservedInFlight = 0;

  constructor(readonly account = ACCOUNT_CONCURRENCY) {}

  /**
   * Reserves `n` for `fn`.
   * @throws Error when fewer than {@link MIN_UNRESERVED} would be left unreserved (as PutFunctionConcurrency refuses it).
   */
  reserve(fn: string, n: number): void {
    const others = [...this.#reserved].filter(([name]) => name !== fn).reduce((sum, [, v]) => sum + v, 0);
    if (this.account - others - n < MIN_UNRESERVED)
      throw new Error(`reserving ${n} for ${fn} leaves fewer than ${MIN_UNRESERVED} unreserved of ${this.account}`);
    this.#reserved.set(fn, n);
  }

  get unreserved(): number {
    return this.account - [...this.#reserved.values()].reduce((a, b) => a + b, 0);
  }

  inFlight(fn: string): number {
    return this.#inFlight.get(fn) ?? 0;
  }

  /** Takes one execution for `fn`; false is a throttle. */
  tryAcquire(fn: string): boolean {
    const reserved = this.#reserved.get(fn);
    const used = this.inFlight(fn);
    if (reserved !== undefined) {
      if (used >= reserved) return false;
    } else {
      if (this.#unreservedInFlight >= this.unreserved) return false;
      this.#unreservedInFlight += 1;
    }
    this.#inFlight.set(fn, used + 1);
    return true;
  }

  release(fn: string): void {
    const used = this.inFlight(fn);
    if (used <= 0) throw new Error(`release of ${fn} without an acquire`);
    this.#inFlight.set(fn, used - 1);
    if (!this.#reserved.has(fn)) this.#unreservedInFlight -= 1;
  }
}
