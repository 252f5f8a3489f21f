/**
 * The simulation's virtual clock: a time-ordered event queue (nothing sleeps) and the context
 * of the Lambda invocation that is running, carried through the real stage code's awaits by
 * AsyncLocalStorage. The in-memory adapters read it to stamp what they do with the
 * invocation's virtual time and to add what an outside call takes (a model call, a runner
 * invocation, a retry's back-off) to the invocation's duration.
 *
 * Invocations run one at a time in real time, each to its end, in the order they start in
 * virtual time; their effects are stamped with start + elapsed. A write made late in a long
 * invocation is therefore visible to an invocation that starts (virtually) before it ends:
 * the simulation errs towards fewer conflicts, never more.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { MinHeap } from './min-heap.ts';

/** What the running invocation has taken so far. */
export interface Invocation {
  fn: string;
  startMs: number;
  /** Serial time (one thing after another: runner calls, back-offs). */
  elapsedMs: number;
  /** Work done side by side from the start (a batch's model calls): the invocation lasts at least this. */
  parallelMs: number;
  /** Per function, how often this invocation's chain invoked it, this one included (Lambda's recursion tracking). */
  chain: Readonly<Record<string, number>>;
  /** When Lambda stops it (start + the function's timeout): nothing it does after this happens. */
  deadlineMs?: number;
}

/** What the sim's stores, ledger and queues throw at a write an invocation makes past its deadline: the write never happens. */
export class PastDeadline extends Error {
  override name = 'Sandbox.Timedout';
}

const current = new AsyncLocalStorage<Invocation>();

interface Event {
  at: number;
  run: () => Promise<void> | void;
}

export class VirtualTime {
  #now = 0;
  readonly #heap = new MinHeap<Event>();
  /** Virtual 0 as a wall-clock date (runs are stamped with it). */
  readonly epochMs: number;

  constructor(epoch = Date.parse('2026-01-05T00:00:00.000Z')) {
    this.epochMs = epoch;
  }

  /** The running invocation's virtual now, else the loop's. */
  now(): number {
    const inv = current.getStore();
    return inv === undefined ? this.#now : inv.startMs + inv.elapsedMs;
  }

  date(): Date {
    return new Date(this.epochMs + this.now());
  }

  invocation(): Invocation | undefined {
    return current.getStore();
  }

  /** Adds `ms` of serial time to the running invocation (no-op outside one). */
  spend(ms: number): void {
    const inv = current.getStore();
    if (inv !== undefined) inv.elapsedMs += ms;
  }

  /** Something that runs beside the invocation's other work from its start (a batch's calls). */
  spendParallel(ms: number): void {
    const inv = current.getStore();
    if (inv !== undefined) inv.parallelMs = Math.max(inv.parallelMs, inv.elapsedMs + ms);
  }

  /**
   * Refuses an effect (a write, a send, an invoke) of an invocation already past its deadline:
   * Lambda stopped it there ("Configure Lambda function timeout": the invocation is ended at the
   * timeout), so nothing it would do later reaches S3, DynamoDB or SQS. Its point in time is the
   * later of its serial time and its side-by-side work (a batch's model calls), so a write after
   * a long call counts as late. @throws PastDeadline
   */
  assertAlive(what: string): void {
    const inv = current.getStore();
    if (inv?.deadlineMs === undefined) return;
    const at = inv.startMs + Math.max(inv.elapsedMs, inv.parallelMs);
    if (at > inv.deadlineMs) throw new PastDeadline(`${inv.fn} timed out at ${inv.deadlineMs} ms: ${what} at ${at} ms never happened`);
  }

  /** Runs `work` as invocation `inv` (its awaits keep the context). */
  within<T>(inv: Invocation, work: () => Promise<T>): Promise<T> {
    return current.run(inv, work);
  }

  at(atMs: number, run: Event['run']): void {
    this.#heap.push({ at: Math.max(atMs, this.#now), run });
  }

  get pending(): number {
    return this.#heap.size;
  }

  /** Runs events in time order until none is left or `untilMs` is passed. */
  async drain(untilMs = Number.POSITIVE_INFINITY): Promise<void> {
    for (let next = this.#heap.peek(); next !== undefined; next = this.#heap.peek()) {
      if (next.at > untilMs) return;
      this.#heap.pop();
      this.#now = next.at;
      await next.run();
    }
  }
}
