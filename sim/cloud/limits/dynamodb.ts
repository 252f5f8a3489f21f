/**
 * DynamoDB limits a run's ledger meets.
 * - Per partition: 3,000 read and 1,000 write units per second, on on-demand tables too; beyond,
 *   requests fail with `ProvisionedThroughputExceededException` (reason
 *   `KeyRangeThroughputExceeded`), which the SDK retries as throttling ("Best practices for
 *   designing and using partition keys effectively",
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html;
 *   "Key range throughput exceeded (hot partitions)", throttling-key-range-limit-exceeded-mitigation.html).
 *   The simulation charges each partition key as its own partition: DynamoDB may later split a
 *   hot key's sort-key range ("split for heat"), so this errs towards more throttling, never less.
 *   Counts are kept per second even when requests arrive out of time order (per-second.ts).
 *   A transactional write costs 2 write units per item (per KB).
 * - Transactions: `TransactWriteItems` takes at most 100 actions on 100 distinct items (4 MB in
 *   all); more, or two actions on one item, is a `ValidationException`.
 * - Transaction conflicts: "a PutItem, UpdateItem, or DeleteItem request for an item conflicts
 *   with an ongoing TransactWriteItems request that includes the same item", and so does a
 *   TransactWriteItems that includes an item another ongoing one holds — the single write
 *   fails with `TransactionConflictException`, the transaction with `TransactionCanceledException`
 *   reason `TransactionConflict`. A single write does not conflict with another single write.
 *   Neither exception is retried by SDK v3 (neither is in @smithy/core 3.41 retry's throttling or
 *   transient lists, nor marked retryable) ("Amazon DynamoDB Transactions: How it works",
 *   transaction conflict handling,
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html).
 *   The page gives no duration for "ongoing"; the simulation holds an item for
 *   {@link TRANSACTION_HOLD_MS} (a transaction's typical latency).
 * Not simulated: an on-demand table's table-level throughput (a new table takes 4,000 write
 * request units a second at once; 40,000 per table by default: "Troubleshooting throttling in
 * on-demand mode"), far above the ledger's rate at the simulation's throughput (tens of units a
 * second at the default generate concurrency).
 */

import { HORIZON_MS, PerSecondCounts } from './per-second.ts';

export const PARTITION_WCU_PER_S = 1000;
export const PARTITION_RCU_PER_S = 3000;
/** Assumed: how long a TransactWriteItems holds its items. */
export const TRANSACTION_HOLD_MS = 25;
/** Actions (and distinct items) one TransactWriteItems may hold. */
export const TRANSACT_MAX_ITEMS = 100;
/** Transactions between sweeps of items whose holds are all past the horizon. */
const SWEEP_EVERY = 50_000;

export class DynamoLimitError extends Error {
  constructor(
    override readonly name: 'ProvisionedThroughputExceededException' | 'TransactionConflictException' | 'ValidationException',
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
  /** Per partition key and second, the units taken (requests arrive out of time order: per-second.ts). */
  readonly #units = new PerSecondCounts<'read' | 'write'>();
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
    const limit = kind === 'read' ? PARTITION_RCU_PER_S : PARTITION_WCU_PER_S;
    if (this.#units.used(pk, kind, nowMs) + units > limit) {
      this.throttles += 1;
      throw new DynamoLimitError(
        'ProvisionedThroughputExceededException',
        `partition ${pk} is over ${limit} ${kind} units in second ${Math.floor(nowMs / 1000)}`,
      );
    }
    const used = this.#units.add(pk, kind, units, nowMs);
    if (kind === 'write' && used > (this.peakWrites.get(pk) ?? 0)) this.peakWrites.set(pk, used);
    if (kind === 'write' && used > this.peakWrite.units) this.peakWrite = { pk, units: used };
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

  /** A transaction: refused over 100 or repeated items; fails (TransactionConflict) when any item is held, else holds them all. */
  transact(itemKeys: readonly string[], nowMs: number): void {
    if (itemKeys.length > TRANSACT_MAX_ITEMS || new Set(itemKeys).size < itemKeys.length)
      throw new DynamoLimitError('ValidationException', `a transaction takes at most ${TRANSACT_MAX_ITEMS} distinct items, got ${itemKeys.join(', ')}`);
    if (itemKeys.some((key) => this.#isHeld(key, nowMs))) {
      this.conflicts += 1;
      throw new DynamoLimitError('TransactionConflictException', `a transaction on ${itemKeys.join(', ')} met an ongoing one`);
    }
    for (const key of itemKeys) {
      let holds = this.#held.get(key);
      if (holds === undefined) this.#held.set(key, (holds = []));
      holds.splice(this.#after(holds, nowMs), 0, { from: nowMs, until: nowMs + this.holdMs });
      // Invocations are at most a function timeout apart: older holds can no longer matter.
      if (holds.length > 4096) holds.splice(0, this.#after(holds, nowMs - HORIZON_MS));
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
    for (const [key, holds] of this.#held) if ((holds[holds.length - 1] as { until: number }).until < nowMs - HORIZON_MS) this.#held.delete(key);
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
