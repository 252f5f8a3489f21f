/**
 * The run ledger's single DynamoDB table — its key design and row mapping — shared by the
 * adapter, the CDK table construct and the tests that create it on moto.
 *
 * Rows (all in the base table, keys `pk`/`sk`, both strings):
 * - run row       pk `RUN#<runId>`, sk `RUN`: summary, counters `recorded`, `verdict_<V>`
 *   (and `costUsd` in runs created before the cost row existed).
 * - cost row      pk `RUN#<runId>`, sk `COST`: `costUsd`, the cost guard's counter. Apart from
 *   the run row because every record is a TransactWriteItems on the run row, and "a PutItem,
 *   UpdateItem, or DeleteItem request for an item conflicts with an ongoing TransactWriteItems
 *   request that includes the same item" (TransactionConflictException, which the SDK does not
 *   retry: "Amazon DynamoDB Transactions: How it works", transaction conflict handling,
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html):
 *   on the run row, a paid generation's cost update lost that race and the sample became SE.
 * - count rows    pk `RUN#<runId>#S<nn>`, sk `COUNT`, one per shard (nn = 00 … LEDGER_SHARDS-1):
 *   `recorded`, `verdict_<V>`, `updatedAt` of the items of that shard — and of the batches
 *   (recordItems) whose first item is of that shard, so only the sum over shards is a run's count
 *   (dynamo-record-batch.ts). A run's record writes
 *   are spread over LEDGER_SHARDS partition keys so one run is not one hot key: DynamoDB
 *   gives a partition at most 1,000 write units per second, and a TransactWriteItems costs 2
 *   per item ("Designing partition keys to distribute your workload", write sharding,
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-sharding.html),
 *   so on one key a run recorded at most 250 items a second, and every record transaction
 *   held the one run row the others needed (TransactionConflict, retried). Readers sum the
 *   shards (`toSummary`). The run row says `shards` = LEDGER_SHARDS; a run written before
 *   shards has none and keeps its counters on the run row and its items under `RUN#<runId>`.
 * - item row      pk `RUN#<runId>#S<nn>` (nn = {@link shardOf} the item id), sk
 *   `ITEM#<itemId>`: exists once the item was counted (pk `RUN#<runId>` in unsharded runs).
 * - booking row   pk `RUN#<runId>#S<nn>` (nn = {@link shardOf} the booking id), sk
 *   `BOOK#<bookingId>`: a spend booked once (a model call's reservation or settlement, keyed by
 *   the call: the cost guard's ids), written in one transaction with the counter it adds to, so
 *   a redelivered generate message or a retried request books nothing twice. An uncapped run's
 *   settlements add to the booking's shard count row (`costUsd`), a capped run's bookings to the
 *   cost row its cap is checked on. (pk `RUN#<runId>` in unsharded runs, adding to the cost row.)
 * - registry row  pk `RUNS`, sk `<createdAt>#<runId>`: written with the run row (one
 *   transaction), never updated.
 *
 * How `listRuns` finds runs — neither a Scan nor a GSI:
 * - a Scan (with a filter on sk = RUN) reads every item row, 100k per large run, to find
 *   a handful of run rows: its cost grows with the items ever recorded;
 * - a GSI over the run rows would be written on every counter update (once per recorded
 *   item, all into one index partition) unless it projects keys only, and it is eventually
 *   consistent, needs its own IAM resource (`table/index/*`) and an index in the stack.
 * The registry partition costs one small write per run, is read with a strongly consistent
 * Query on the table itself (oldest first), and the summaries come from BatchGetItem.
 * It is one partition, but it receives one write per run, far below a partition's limit.
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import type { RunStatus, RunSummary } from '../core/ports.ts';
import { VERDICTS, type Verdict } from '../core/types.ts';

/** A table row as the document client reads and writes it. */
export type Row = Record<string, unknown>;
/** Sort key of the run row. */
export const RUN_SK = 'RUN';
/** Sort-key prefix of item rows. */
export const ITEM_PREFIX = 'ITEM#';

/** Attribute names of the ledger table's keys. */
export const LEDGER_TABLE = { partitionKey: 'pk', sortKey: 'sk' } as const;

/** Partition key of the registry rows that list every run. */
export const RUNS_PK = 'RUNS';

/** The CreateTable input (on-demand billing) for tests and local tooling; infra mirrors it. */
export function ledgerTableDefinition(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey } = LEDGER_TABLE;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: partitionKey, AttributeType: 'S' },
      { AttributeName: sortKey, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
  };
}

/** Sort key of the cost row. */
export const COST_SK = 'COST';

/** Primary key of a run's cost row (the cost guard's counter, never in a transaction). */
export function costKey(runId: string): { pk: string; sk: string } {
  return { pk: `RUN#${runId}`, sk: COST_SK };
}

/** Primary key of a run's row. */
export function runKey(runId: string): { pk: string; sk: string } {
  return { pk: `RUN#${runId}`, sk: RUN_SK };
}

/** Count rows per run (see the header). */
export const LEDGER_SHARDS = 16;
/** Sort key of a shard's count row. */
export const COUNT_SK = 'COUNT';

/** The shard of an item: FNV-1a of its id, so every writer and reader agrees without a lookup. */
export function shardOf(itemId: string, shards = LEDGER_SHARDS): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < itemId.length; i++) {
    hash ^= itemId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

/** Partition key of shard `shard` of a run. */
export function shardPk(runId: string, shard: number): string {
  return `RUN#${runId}#S${String(shard).padStart(2, '0')}`;
}

/** Primary keys of a run's count rows, shard 0 first. */
export function countKeys(runId: string, shards = LEDGER_SHARDS): { pk: string; sk: string }[] {
  return Array.from({ length: shards }, (_, shard) => ({ pk: shardPk(runId, shard), sk: COUNT_SK }));
}

/**
 * Where an item's row and the counters it adds to live: its shard's partition (count row), or
 * the run's own partition and run row in a run written before shards (`shards` 0).
 */
export function itemPlace(runId: string, itemId: string, shards: number): { itemKey: { pk: string; sk: string }; counterKey: { pk: string; sk: string } } {
  if (shards <= 0) return { itemKey: { pk: runKey(runId).pk, sk: ITEM_PREFIX + itemId }, counterKey: runKey(runId) };
  const pk = shardPk(runId, shardOf(itemId, shards));
  return { itemKey: { pk, sk: ITEM_PREFIX + itemId }, counterKey: { pk, sk: COUNT_SK } };
}

/** Sort-key prefix of booking rows. */
export const BOOKING_PREFIX = 'BOOK#';

/**
 * Where a booking's row lives and the counter an uncapped booking adds to: its shard's
 * partition and count row, or (a run written before shards) the run's partition and cost row.
 */
export function bookingPlace(
  runId: string,
  bookingId: string,
  shards: number,
): { bookingKey: { pk: string; sk: string }; counterKey: { pk: string; sk: string } } {
  if (shards <= 0) return { bookingKey: { pk: runKey(runId).pk, sk: BOOKING_PREFIX + bookingId }, counterKey: costKey(runId) };
  const pk = shardPk(runId, shardOf(bookingId, shards));
  return { bookingKey: { pk, sk: BOOKING_PREFIX + bookingId }, counterKey: { pk, sk: COUNT_SK } };
}

/** The run row's counter attribute for a verdict. */
export function verdictAttribute(verdict: Verdict): string {
  return `verdict_${verdict}`;
}

/**
 * Maps a run row (with its cost row and its shards' count rows, when there are) to the port's
 * RunSummary (zero counters are left out of `verdicts`): counters are the run row's plus every
 * shard's, the spend the cost row's plus the shards' (uncapped bookings) plus what an older run row holds.
 */
export function toSummary(row: Row, cost?: Row, counts: readonly Row[] = []): RunSummary {
  const counters = [row, ...counts];
  const sum = (attribute: string) => counters.reduce((total, r) => total + Number(r[attribute] ?? 0), 0);
  const verdicts: Partial<Record<Verdict, number>> = {};
  for (const verdict of VERDICTS) {
    const count = sum(verdictAttribute(verdict));
    if (count > 0) verdicts[verdict] = count;
  }
  // ISO-8601 stamps of one clock order as strings: the latest write of the run row or a shard.
  const updatedAt = counters.map((r) => (typeof r.updatedAt === 'string' ? r.updatedAt : '')).reduce((a, b) => (b > a ? b : a), String(row.updatedAt));
  const summary: RunSummary = {
    runId: String(row.runId),
    benchmark: String(row.benchmark),
    model: String(row.model),
    status: row.status as RunStatus,
    items: Number(row.items ?? 0),
    recorded: sum('recorded'),
    verdicts,
    costUsd: sum('costUsd') + Number(cost?.costUsd ?? 0),
    createdAt: String(row.createdAt),
    updatedAt,
  };
  if (typeof row.reason === 'string') summary.reason = row.reason;
  return summary;
}
