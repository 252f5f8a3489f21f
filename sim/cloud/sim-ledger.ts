/**
 * The run ledger as DynamoDB would hold it, in memory, with DynamoDB's limits enforced: the
 * rows and the writes of layers/aws/dynamo-run-ledger.ts (item row + its shard's count row in
 * one TransactWriteItems per record — or, `shards` 0, the run row as before write sharding — a
 * batch's item rows and one count row per transaction (recordItems), a batch's booking rows and
 * one count row per transaction (addCosts), the part counter's
 * UpdateItem, the cost guard's UpdateItem on
 * the cost row — or, `costOnRunRow`, on the run row as before the fix), each charged to its
 * partition and checked against ongoing transactions (limits/dynamodb.ts). Failures surface
 * as the adapter surfaces them: a transaction conflict is retried 8 times with jittered
 * back-off (in virtual time), a throughput error 3 times as the SDK does, a single write's
 * conflict is a HarnessError at once (the SDK does not retry it).
 *
 * Same port (RunLedger), same key layout (dynamo-ledger-schema.ts); the counting itself is
 * plain maps.
 */
import { HarnessError } from '#core/errors.ts';
import type { CostBooking, ItemCount, RunLedger, RunStatus, RunSummary, SetRunItems } from '#core/ports.ts';
import type { Verdict } from '#core/types.ts';
import { bookingPlace, costKey, itemPlace, runKey, shardPk } from '#aws/dynamo-ledger-schema.ts';
import { ITEMS_PER_TRANSACTION } from '#aws/dynamo-record-batch.ts';
import { PART_SHARDS, partKey, partShardOf, slotsInShard, type PartCounter, type PartSlot } from '#aws/dynamo-part-counter.ts';
import { DynamoLimitError, DynamoLimits } from './limits/dynamodb.ts';
import type { VirtualTime } from './virtual-time.ts';

const CONFLICT_RETRIES = 8;
const SDK_ATTEMPTS = 3;

type Run = RunSummary;

export interface SimLedgerOptions {
  time: VirtualTime;
  limits: DynamoLimits;
  /** Book cost on the run row (the layout before the fix). */
  costOnRunRow: boolean;
  /** Random numbers for jitter (seeded by the simulation). */
  random: () => number;
  /** Count shards per run (dynamo-ledger-schema.ts LEDGER_SHARDS; 0: the run row, as before sharding). */
  shards: number;
  /** Book spend once per booking id (the fix; false: every booking adds, as before). */
  bookingIds: boolean;
  /** Count parts on sub-counters in the shards' partitions (the fix; false: one row per part in the run's partition). */
  partShards: boolean;
  /** Count a batch of records in one transaction per 99 items (the fix; false: one transaction per record). */
  batchRecords: boolean;
}

export class SimLedger implements RunLedger, PartCounter {
  readonly #runs = new Map<string, Run>();
  readonly #items = new Map<string, Map<string, Verdict>>();
  readonly #parts = new Map<string, Set<number>>();
  readonly #bookings = new Set<string>();
  readonly #o: SimLedgerOptions;

  constructor(options: SimLedgerOptions) {
    this.#o = options;
  }

  readonly setItems: SetRunItems = async (runId, items) => {
    await this.#single('setItems', runKey(runId), () => {
      this.#run(runId).items = items;
    });
  };

  createRun(summary: Omit<RunSummary, 'recorded' | 'verdicts' | 'costUsd' | 'updatedAt'>): Promise<void> {
    if (!this.#runs.has(summary.runId))
      this.#runs.set(summary.runId, { ...summary, recorded: 0, verdicts: {}, costUsd: 0, updatedAt: this.#o.time.date().toISOString() });
    return Promise.resolve();
  }

  async getRun(runId: string): Promise<RunSummary | undefined> {
    // One BatchGetItem: the run row and cost row in the run's partition, a count row in each shard's.
    await this.#read(runKey(runId).pk, this.#o.costOnRunRow ? 1 : 2);
    for (let shard = 0; shard < this.#o.shards; shard++) await this.#read(shardPk(runId, shard), 1);
    const run = this.#runs.get(runId);
    return run === undefined ? undefined : { ...run, verdicts: { ...run.verdicts } };
  }

  /** One GetItem on the run row (dynamo-run-ledger.ts runStatus). */
  async runStatus(runId: string): Promise<RunStatus | undefined> {
    await this.#read(runKey(runId).pk, 1);
    return this.#runs.get(runId)?.status;
  }

  async listRuns(): Promise<RunSummary[]> {
    return Promise.all([...this.#runs.keys()].map(async (id) => (await this.getRun(id)) as RunSummary));
  }

  async recordItem(runId: string, itemId: string, verdict: Verdict): Promise<boolean> {
    const items = this.#itemsOf(runId);
    return this.#transact('recordItem', this.#place(runId, itemId), () => {
      if (items.has(itemId)) return false;
      const run = this.#run(runId);
      items.set(itemId, verdict);
      run.recorded += 1;
      run.verdicts[verdict] = (run.verdicts[verdict] ?? 0) + 1;
      run.updatedAt = this.#o.time.date().toISOString();
      return true;
    });
  }

  /**
   * dynamo-record-batch.ts: per transaction up to 99 item rows (each in its own shard) and the first
   * item's count row, each charged 2 units to its partition; an item counted before cancels the
   * transaction (billed as sent, as a single record's duplicate is here: assumed, AWS's pages do not say
   * what a cancelled transaction bills) and is taken out, the rest sent again. `batchRecords` false: one
   * recordItem per item, as before the batch.
   */
  async recordItems(runId: string, batch: readonly ItemCount[]): Promise<boolean[]> {
    if (!this.#o.batchRecords) {
      const counted: boolean[] = [];
      for (const { itemId, verdict } of batch) counted.push(await this.recordItem(runId, itemId, verdict));
      return counted;
    }
    const items = this.#itemsOf(runId);
    const counted = batch.map(() => false);
    const first = new Map<string, number>();
    batch.forEach((item, index) => first.has(item.itemId) || first.set(item.itemId, index));
    const unique = [...first.values()];
    for (let start = 0; start < unique.length; start += ITEMS_PER_TRANSACTION) {
      let pending = unique.slice(start, start + ITEMS_PER_TRANSACTION);
      while (pending.length > 0) {
        const rows = pending.map((index) => itemPlace(runId, (batch[index] as ItemCount).itemId, this.#o.shards).itemKey);
        const counter = itemPlace(runId, (batch[pending[0] as number] as ItemCount).itemId, this.#o.shards).counterKey;
        const duplicates = await this.#transact('recordItems', [...rows, counter].map(keyOf), () =>
          pending.filter((index) => items.has((batch[index] as ItemCount).itemId)),
        );
        if (duplicates.length > 0) {
          pending = pending.filter((index) => !duplicates.includes(index));
          continue;
        }
        const run = this.#run(runId);
        for (const index of pending) {
          const { itemId, verdict } = batch[index] as ItemCount;
          items.set(itemId, verdict);
          run.recorded += 1;
          run.verdicts[verdict] = (run.verdicts[verdict] ?? 0) + 1;
          counted[index] = true;
        }
        run.updatedAt = this.#o.time.date().toISOString();
        pending = [];
      }
    }
    return counted;
  }

  async reviseItem(runId: string, itemId: string, from: Verdict, to: Verdict): Promise<boolean> {
    const items = this.#itemsOf(runId);
    return this.#transact('reviseItem', this.#place(runId, itemId), () => {
      if (items.get(itemId) !== from) return false;
      const run = this.#run(runId);
      items.set(itemId, to);
      run.verdicts[from] = (run.verdicts[from] ?? 1) - 1;
      run.verdicts[to] = (run.verdicts[to] ?? 0) + 1;
      return true;
    });
  }

  /** One eventually consistent GetItem on the item row, half a read unit (dynamo-run-ledger.ts countedVerdict). */
  async countedVerdict(runId: string, itemId: string): Promise<Verdict | undefined> {
    await this.#read(itemPlace(runId, itemId, this.#o.shards).itemKey.pk, 0.5);
    return this.#items.get(runId)?.get(itemId);
  }

  recordedItems(runId: string): Promise<Set<string>> {
    return Promise.resolve(new Set(this.#itemsOf(runId).keys()));
  }

  /**
   * With a booking id: its booking row and its shard's count row in one transaction
   * (dynamo-run-ledger.ts addCost) — or, `costOnRunRow`, the run row, where spend was added
   * before the cost row; the booking id is kept either way (`bookingIds` alone drops it).
   */
  async addCost(runId: string, usd: number, bookingId?: string): Promise<void> {
    if (bookingId === undefined || !this.#o.bookingIds) {
      await this.trySpend(runId, usd, null);
      return;
    }
    const { bookingKey, counterKey } = bookingPlace(runId, bookingId, this.#o.shards);
    const counter = this.#o.costOnRunRow ? runKey(runId) : counterKey;
    await this.#transact('addCost', [bookingKey, counter].map(keyOf), () => this.#book(runId, bookingId, usd, null));
  }

  /**
   * dynamo-booking-batch.ts: per transaction up to 99 booking rows (each in its own shard) and the
   * first booking's count row (`costOnRunRow`: the run row), each charged 2 units to its partition;
   * a booking made before cancels the transaction (billed as sent, as recordItems' duplicates) and is
   * taken out, the rest sent again. `bookingIds` false, or a run without shards: one addCost per
   * booking. (`--without batch-bookings` never calls it: generate then books each call on its own.)
   */
  async addCosts(runId: string, batch: readonly CostBooking[]): Promise<void> {
    if (!this.#o.bookingIds || this.#o.shards === 0) {
      for (const { bookingId, usd } of batch) await this.addCost(runId, usd, bookingId);
      return;
    }
    const first = new Map<string, number>();
    batch.forEach((booking, index) => first.has(booking.bookingId) || first.set(booking.bookingId, index));
    const unique = [...first.values()];
    const booked = (index: number) => this.#bookings.has(`${runId}|${(batch[index] as CostBooking).bookingId}`);
    for (let start = 0; start < unique.length; start += ITEMS_PER_TRANSACTION) {
      let pending = unique.slice(start, start + ITEMS_PER_TRANSACTION);
      while (pending.length > 0) {
        const rows = pending.map((index) => bookingPlace(runId, (batch[index] as CostBooking).bookingId, this.#o.shards).bookingKey);
        const { counterKey } = bookingPlace(runId, (batch[pending[0] as number] as CostBooking).bookingId, this.#o.shards);
        const counter = this.#o.costOnRunRow ? runKey(runId) : counterKey;
        const duplicates = await this.#transact('addCosts', [...rows, counter].map(keyOf), () => pending.filter(booked));
        if (duplicates.length > 0) {
          pending = pending.filter((index) => !duplicates.includes(index));
          continue;
        }
        for (const index of pending) this.#book(runId, (batch[index] as CostBooking).bookingId, (batch[index] as CostBooking).usd, null);
        pending = [];
      }
    }
  }

  /** With a booking id: its booking row and the cost row (`costOnRunRow`: the run row) in one transaction (dynamo-run-ledger.ts trySpend). */
  async trySpend(runId: string, usd: number, capUsd: number | null, bookingId?: string): Promise<boolean> {
    const spendKey = this.#o.costOnRunRow ? runKey(runId) : costKey(runId);
    if (bookingId !== undefined && this.#o.bookingIds) {
      const { bookingKey } = bookingPlace(runId, bookingId, this.#o.shards);
      return this.#transact('trySpend', [bookingKey, spendKey].map(keyOf), () => this.#book(runId, bookingId, usd, capUsd));
    }
    return this.#single('trySpend', spendKey, () => this.#book(runId, undefined, usd, capUsd));
  }

  #book(runId: string, bookingId: string | undefined, usd: number, capUsd: number | null): boolean {
    if (bookingId !== undefined && this.#bookings.has(`${runId}|${bookingId}`)) return true;
    const run = this.#run(runId);
    if (capUsd !== null && usd > 0 && run.costUsd + usd > capUsd + 1e-12) return false;
    run.costUsd += usd;
    if (bookingId !== undefined) this.#bookings.add(`${runId}|${bookingId}`);
    return true;
  }

  async setStatus(runId: string, status: RunStatus, reason?: string): Promise<void> {
    await this.#single('setStatus', runKey(runId), () => {
      const run = this.#run(runId);
      if (run.status === 'cancelled') return;
      run.status = status;
      if (reason === undefined) delete run.reason;
      else run.reason = reason;
      run.updatedAt = this.#o.time.date().toISOString();
    });
  }

  /** claimStatus (dynamo-run-ledger.ts): one conditional UpdateItem on the run row. */
  async claimStatus(runId: string, from: readonly RunStatus[], status: RunStatus, reason?: string): Promise<boolean> {
    return this.#single('claimStatus', runKey(runId), () => {
      const run = this.#runs.get(runId);
      if (run === undefined || !from.includes(run.status)) return false;
      run.status = status;
      if (reason === undefined) delete run.reason;
      else run.reason = reason;
      run.updatedAt = this.#o.time.date().toISOString();
      return true;
    });
  }

  /**
   * PartCounter (dynamo-part-counter.ts): one UpdateItem per slot on the slot's sub-counter in
   * its shard's partition — or, `partShards` false, on the part's one row in the run's partition
   * (as before the spread) — charged its size in write units (1 per KB); a sub-counter that fills
   * reads the part's sub-counters (one strongly consistent read each).
   */
  async count(runId: string, part: PartSlot): Promise<boolean> {
    const shard = this.#o.partShards ? partShardOf(part.slot) : 0;
    const key = this.#o.partShards ? partKey(runId, part.index, shard) : { pk: runKey(runId).pk, sk: `PART#${part.index}` };
    const slots = this.#parts.get(`${key.pk}|${key.sk}`) ?? new Set<number>();
    this.#parts.set(`${key.pk}|${key.sk}`, slots);
    // A number set of small numbers: about 3 bytes a slot, and the row's keys and names.
    const units = Math.ceil((40 + 3 * (slots.size + 1)) / 1024);
    const recorded = await this.#single('countPart', key, () => (slots.add(part.slot), slots.size), units);
    if (!this.#o.partShards) return recorded >= part.size;
    if (recorded < slotsInShard(part.size, shard)) return false;
    const shards = Array.from({ length: Math.min(PART_SHARDS, part.size) }, (_, s) => s);
    for (const s of shards) await this.#read(partKey(runId, part.index, s).pk, 1);
    return shards.every((s) => {
      const k = partKey(runId, part.index, s);
      return (this.#parts.get(`${k.pk}|${k.sk}`)?.size ?? 0) >= slotsInShard(part.size, s);
    });
  }

  /** The two items a record's transaction holds (item row, counter row). */
  #place(runId: string, itemId: string): string[] {
    const { itemKey, counterKey } = itemPlace(runId, itemId, this.#o.shards);
    return [itemKey, counterKey].map(keyOf);
  }

  #run(runId: string): Run {
    const run = this.#runs.get(runId);
    if (run === undefined) throw new HarnessError(`run ${runId} is not in the ledger`);
    return run;
  }

  #itemsOf(runId: string): Map<string, Verdict> {
    let items = this.#items.get(runId);
    if (items === undefined) this.#items.set(runId, (items = new Map()));
    return items;
  }

  async #read(pk: string, units: number): Promise<void> {
    await this.#sdkRetries('read', () => this.#o.limits.charge(pk, 'read', units, this.#o.time.now()));
  }

  /** One UpdateItem: throughput retried as the SDK does; a conflict is the caller's HarnessError. */
  async #single<R>(op: string, key: { pk: string; sk: string }, apply: () => R, units = 1): Promise<R> {
    try {
      await this.#sdkRetries(op, () => {
        this.#o.limits.charge(key.pk, 'write', units, this.#o.time.now());
        this.#o.limits.write(`${key.pk}|${key.sk}`, this.#o.time.now());
      });
    } catch (error) {
      throw new HarnessError(`DynamoDB ${op} failed: ${(error as Error).name}`, { cause: error });
    }
    this.#o.time.spend(5);
    this.#o.time.assertAlive(`DynamoDB ${op}`);
    return apply();
  }

  /** A TransactWriteItems on `items` (`pk|sk`, each charged 2 units to its partition): conflicts retried with jittered back-off, as the adapter's #transact does. */
  async #transact<R>(op: string, items: string[], apply: () => R): Promise<R> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.#sdkRetries(op, () => {
          for (const item of items) this.#o.limits.charge(item.slice(0, item.indexOf('|')), 'write', 2, this.#o.time.now());
          this.#o.limits.transact(items, this.#o.time.now());
        });
        this.#o.time.spend(10);
        this.#o.time.assertAlive(`DynamoDB ${op}`);
        return apply();
      } catch (error) {
        const conflict = error instanceof DynamoLimitError && error.name === 'TransactionConflictException';
        if (!conflict || attempt + 1 >= CONFLICT_RETRIES) throw new HarnessError(`DynamoDB ${op} failed: ${(error as Error).name}`, { cause: error });
        this.#o.time.spend(this.#o.random() * Math.min(1000, 20 * 2 ** (attempt + 1)));
      }
    }
  }

  /** ProvisionedThroughputExceeded is retried by the SDK (3 attempts, throttling back-off from 500 ms). */
  async #sdkRetries(_op: string, attemptOnce: () => void): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        attemptOnce();
        return;
      } catch (error) {
        const throttled = error instanceof DynamoLimitError && error.name === 'ProvisionedThroughputExceededException';
        if (!throttled || attempt >= SDK_ATTEMPTS) throw error;
        this.#o.time.spend(this.#o.random() * 500 * 2 ** attempt);
      }
    }
  }
}

/** An item's `pk|sk`, as limits/dynamodb.ts tracks holds. */
function keyOf(key: { pk: string; sk: string }): string {
  return `${key.pk}|${key.sk}`;
}
