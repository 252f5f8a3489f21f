/**
 * Request counts per key per whole second, for the limits AWS states per second: DynamoDB's
 * per-partition throughput (dynamodb.ts) and S3's per-prefix request rates (s3-prefix.ts).
 *
 * The simulation's invocations run one at a time, each to its end (virtual-time.ts), so
 * requests do not reach a limit in time order: a long invocation's late writes are counted
 * before a short one that started after it. A single "current second" per key would be reset
 * back and forth by such requests and forget what the later second already took; each
 * (key, second) therefore keeps its own count. Invocations are at most a function timeout
 * (15 minutes) apart in virtual time, so seconds older than {@link HORIZON_MS} before the
 * latest one seen can no longer be asked for and are dropped in sweeps.
 */

/** Twice the longest function timeout: a request never belongs to a second older than this before the latest. */
export const HORIZON_MS = 30 * 60_000;
/** Additions between sweeps of seconds past the horizon. */
const SWEEP_EVERY = 50_000;

export class PerSecondCounts<K extends string> {
  readonly #counts = new Map<string, { second: number; used: Partial<Record<K, number>> }>();
  #latestSecond = Number.NEGATIVE_INFINITY;
  #sinceSweep = 0;

  /** What `kind` on `key` has taken in the second of `nowMs`. */
  used(key: string, kind: K, nowMs: number): number {
    return this.#counts.get(slotOf(key, nowMs))?.used[kind] ?? 0;
  }

  /** Adds `n` of `kind` to `key` in the second of `nowMs`; returns that second's new count. */
  add(key: string, kind: K, n: number, nowMs: number): number {
    const second = Math.floor(nowMs / 1000);
    const slotKey = slotOf(key, nowMs);
    let slot = this.#counts.get(slotKey);
    if (slot === undefined) this.#counts.set(slotKey, (slot = { second, used: {} }));
    const total = (slot.used[kind] ?? 0) + n;
    slot.used[kind] = total;
    this.#latestSecond = Math.max(this.#latestSecond, second);
    if (++this.#sinceSweep >= SWEEP_EVERY) this.#sweep();
    return total;
  }

  /** (key, second) slots held (for the simulator's own memory figures and tests). */
  get slots(): number {
    return this.#counts.size;
  }

  #sweep(): void {
    this.#sinceSweep = 0;
    const oldest = this.#latestSecond - HORIZON_MS / 1000;
    for (const [slotKey, slot] of this.#counts) if (slot.second < oldest) this.#counts.delete(slotKey);
  }
}

function slotOf(key: string, nowMs: number): string {
  return `${key}\u0000${Math.floor(nowMs / 1000)}`;
}
