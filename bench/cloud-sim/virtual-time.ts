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
}

const current = new AsyncLocalStorage<Invocation>();

interface Event {
  at: number;
  seq: number;
  run: () => Promise<void> | void;
}

export class VirtualTime {
  #now = 0;
  #seq = 0;
  readonly #heap: Event[] = [];
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

  /** Runs `work` as invocation `inv` (its awaits keep the context). */
  within<T>(inv: Invocation, work: () => Promise<T>): Promise<T> {
    return current.run(inv, work);
  }

  at(atMs: number, run: Event['run']): void {
    const event = { at: Math.max(atMs, this.#now), seq: this.#seq++, run };
    this.#heap.push(event);
    this.#up(this.#heap.length - 1);
  }

  get pending(): number {
    return this.#heap.length;
  }

  /** Runs events in time order until none is left or `untilMs` is passed. */
  async drain(untilMs = Number.POSITIVE_INFINITY): Promise<void> {
    while (this.#heap.length > 0) {
      const next = this.#pop();
      if (next.at > untilMs) {
        this.at(next.at, next.run);
        return;
      }
      this.#now = next.at;
      await next.run();
    }
  }

  #less(a: Event, b: Event): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #up(i: number): void {
    const h = this.#heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.#less(h[i] as Event, h[p] as Event)) break;
      [h[i], h[p]] = [h[p] as Event, h[i] as Event];
      i = p;
    }
  }

  #pop(): Event {
    const h = this.#heap;
    const top = h[0] as Event;
    const last = h.pop() as Event;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.#less(h[l] as Event, h[m] as Event)) m = l;
        if (r < h.length && this.#less(h[r] as Event, h[m] as Event)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m] as Event, h[i] as Event];
        i = m;
      }
    }
    return top;
  }
}
