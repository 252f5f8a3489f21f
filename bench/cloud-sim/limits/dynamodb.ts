/**
 * DynamoDB limits a run's ledger meets.
 * - Per partition: 3,000 read and 1,000 write units per second; beyond, requests fail with
 *   `ProvisionedThroughputExceededException` (on-demand tables too, per partition), which the
 *   SDK retries ("Designing partition keys to distribute your workload",
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html).
 *   A transactional write costs 2 write units per item.
 * - Transaction conflicts: "a PutItem, UpdateItem, or DeleteItem request for an item conflicts
 *   with an ongoing TransactWriteItems request that includes the same item" — the single write
 *   fails with `TransactionConflictException`, the transaction fails with
 *   `TransactionCanceledException` reason `TransactionConflict`; neither is retried by the SDK
 *   ("Amazon DynamoDB Transactions: How it works", transaction conflict handling,
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html).
 *   The page gives no duration for "ongoing"; the simulation holds an item for
 *   {@link TRANSACTION_HOLD_MS} (a transaction's typical latency).
 */

export const PARTITION_WCU_PER_S = 1000;
export const PARTITION_RCU_PER_S = 3000;
/** Assumed: how long a TransactWriteItems holds its items. */
export const TRANSACTION_HOLD_MS = 25;
/** Invocations are at most a function's timeout (15 min) apart in virtual time: holds older than twice that can no longer matter. */
const HOLD_HORIZON_MS = 30 * 60_000;
/** Transactions between sweeps of items whose holds are all past the horizon. */
const SWEEP_EVERY = 50_000;

export class DynamoLimitError extends Error {
  constructor(
    override readonly name: 'ProvisionedThroughputExceededException' | 'TransactionConflictException',
    message: string,
  ) {
    // Tens of thousands are thrown and caught in a large run: no stack trace to capture.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

/** Per-second capacity per partition key, and the items ongoing transactions hold. */
export class DynamoLimits {
  readonly #units = new Map<string, { second: number; read: number; write: number }>();
  /**
   * Per item, the holds [from, until) of its transactions, by `from`: the simulation's
   * invocations do not arrive in time order (virtual-time.ts), so a request checks every hold
   * of the last few minutes, not only the newest.
   */
  readonly #held = new Map<string, { from: number; until: number }[]>();
  #sinceSweep = 0;
  conflicts = 0;
  throttles = 0;
  readUnits = 0;
  writeUnits = 0;
  /** The most write units one partition took in one second, and which. */
  peakWrite = { pk: '', units: 0 };
  /** Per partition, the most write units it took in one second. */
  readonly peakWrites = new Map<string, number>();

  /** `holdMs`: how long a transaction holds its items (0: no conflicts, to see what the limit costs). */
  constructor(readonly holdMs = TRANSACTION_HOLD_MS) {}

  /** Charges `units` to partition `pk` at `nowMs`; throws when its second is full. */
  charge(pk: string, kind: 'read' | 'write', units: number, nowMs: number): void {
    const second = Math.floor(nowMs / 1000);
    let slot = this.#units.get(pk);
    if (slot === undefined || slot.second !== second) {
      slot = { second, read: 0, write: 0 };
      this.#units.set(pk, slot);
    }
    const limit = kind === 'read' ? PARTITION_RCU_PER_S : PARTITION_WCU_PER_S;
    if (slot[kind] + units > limit) {
      this.throttles += 1;
      throw new DynamoLimitError('ProvisionedThroughputExceededException', `partition ${pk} is over ${limit} ${kind} units in second ${second}`);
    }
    slot[kind] += units;
    if (kind === 'write' && slot.write > (this.peakWrites.get(pk) ?? 0)) this.peakWrites.set(pk, slot.write);
    if (kind === 'write' && slot.write > this.peakWrite.units) this.peakWrite = { pk, units: slot.write };
    if (kind === 'read') this.readUnits += units;
    else this.writeUnits += units;
  }

  /** A single-item write: fails while a transaction holds the item. */
  write(itemKey: string, nowMs: number): void {
    if (this.#isHeld(itemKey, nowMs)) {
      this.conflicts += 1;
      throw new DynamoLimitError('TransactionConflictException', `item ${itemKey} is in an ongoing transaction`);
    }
  }

  /** A transaction: fails (TransactionConflict) when any item is held, else holds them all. */
  transact(itemKeys: readonly string[], nowMs: number): void {
    if (itemKeys.some((key) => this.#isHeld(key, nowMs))) {
      this.conflicts += 1;
      throw new DynamoLimitError('TransactionConflictException', `a transaction on ${itemKeys.join(', ')} met an ongoing one`);
    }
    for (const key of itemKeys) {
      let holds = this.#held.get(key);
      if (holds === undefined) this.#held.set(key, (holds = []));
      holds.splice(this.#after(holds, nowMs), 0, { from: nowMs, until: nowMs + this.holdMs });
      // Invocations are at most a function timeout apart: older holds can no longer matter.
      if (holds.length > 4096) holds.splice(0, this.#after(holds, nowMs - HOLD_HORIZON_MS));
    }
    if (++this.#sinceSweep >= SWEEP_EVERY) this.#sweep(nowMs);
  }

  /** Items held by transactions at some time (each record's item row is one: a million in a million-item run). */
  get heldItems(): number {
    return this.#held.size;
  }

  /** Forgets items whose every hold ended before the horizon (a record's item row is written once). */
  #sweep(nowMs: number): void {
    this.#sinceSweep = 0;
    for (const [key, holds] of this.#held) if ((holds[holds.length - 1] as { until: number }).until < nowMs - HOLD_HORIZON_MS) this.#held.delete(key);
  }

  /** Index of the first hold starting after `t`. */
  #after(holds: { from: number }[], t: number): number {
    let lo = 0;
    let hi = holds.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((holds[mid] as { from: number }).from <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #isHeld(key: string, nowMs: number): boolean {
    const holds = this.#held.get(key);
    if (holds === undefined) return false;
    const last = holds[this.#after(holds, nowMs) - 1];
    return last !== undefined && nowMs < last.until;
  }
}
