/**
 * Counts recorded items per records part (one plan chunk) in the ledger table, so the stage
 * that records a part's last item can have the part's Parquet file written while the run goes
 * on. Exactly once per slot: a part's slots are spread over PART_SHARDS sub-counters (slot mod
 * PART_SHARDS), each a row in that shard's partition (`RUN#<runId>#S<nn>`, as the ledger's
 * count rows, dynamo-ledger-schema.ts), keeping its counted slots in a number set; the update
 * is conditional on the slot not being in it (a redelivery changes nothing).
 *
 * Why spread: one row per part in the run's partition made every record of a run one more
 * write on one key, and a row whose set holds up to a thousand slots costs several write units
 * per update (an item's write units are its size in KB: "Read/write capacity mode", DynamoDB
 * developer guide); a partition takes at most 1,000 a second. A sub-counter holds a sixteenth
 * of the slots (one write unit) in a partition of its own.
 *
 * Completion: the update that fills a sub-counter (its `recorded` reaches the slots of the part
 * that fall in its shard) reads every sub-counter of the part, strongly consistent, in one
 * BatchGetItem; the part is complete when all are full. Of two updates that fill the last two
 * at once, each reads after its own write, so at least one sees both full (both may: a second
 * compaction message is harmless, compaction is deterministic).
 *
 * Row: pk `RUN#<runId>#S<nn>`, sk `PART#<index>` (5 digits), attributes `slots` (NS), `recorded` (N).
 * Parts counted before the spread (sk `PART#…` in `RUN#<runId>`) are no longer read: a part
 * still in flight across the upgrade is compacted by the final aggregate (record-parts.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { fullJitterMs } from '../core/backoff.ts';
import { HarnessError } from '../core/errors.ts';
import { awsErrorName } from './aws-errors.ts';
import { shardPk } from './dynamo-ledger-schema.ts';

/** Sort-key prefix of part rows. */
export const PART_PREFIX = 'PART#';
/** Sub-counters per part. */
export const PART_SHARDS = 16;

/** Where a slot of a part is counted. */
export interface PartSlot {
  index: number;
  slot: number;
  /** The part's slots. */
  size: number;
}

export interface PartCounter {
  /**
   * Counts `slot` of part `index` once; true when, after it, every slot of the part is counted
   * (a redelivered slot of a complete part says so again).
   */
  count(runId: string, part: PartSlot): Promise<boolean>;
}

/** The sub-counter of a slot. */
export function partShardOf(slot: number): number {
  return slot % PART_SHARDS;
}

/** How many of a part's `size` slots its sub-counter `shard` counts. */
export function slotsInShard(size: number, shard: number): number {
  return shard < size ? Math.floor((size - 1 - shard) / PART_SHARDS) + 1 : 0;
}

/** The key of sub-counter `shard` of part `index` of a run. */
export function partKey(runId: string, index: number, shard: number): { pk: string; sk: string } {
  return { pk: shardPk(runId, shard), sk: `${PART_PREFIX}${String(index).padStart(5, '0')}` };
}

export class DynamoPartCounter implements PartCounter {
  readonly #doc: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(options: { client: DynamoDBClient; tableName: string }) {
    this.#doc = DynamoDBDocumentClient.from(options.client);
    this.#table = options.tableName;
  }

  async count(runId: string, part: PartSlot): Promise<boolean> {
    const shard = partShardOf(part.slot);
    const Key = partKey(runId, part.index, shard);
    let recorded: number;
    try {
      const out = await this.#doc.send(
        new UpdateCommand({
          TableName: this.#table,
          Key,
          UpdateExpression: 'ADD slots :slot, recorded :one',
          ConditionExpression: 'attribute_not_exists(slots) OR NOT contains(slots, :n)',
          ExpressionAttributeValues: { ':slot': new Set([part.slot]), ':one': 1, ':n': part.slot },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      recorded = Number(out.Attributes?.recorded ?? 0);
    } catch (error) {
      if (awsErrorName(error) !== 'ConditionalCheckFailedException') throw this.#fault(runId, part, error);
      // Counted before (a redelivery, perhaps after a crash that lost the compaction message): read the count.
      const row = await this.#doc.send(new GetCommand({ TableName: this.#table, Key, ConsistentRead: true }));
      recorded = Number(row.Item?.recorded ?? 0);
    }
    if (recorded < slotsInShard(part.size, shard)) return false;
    return this.#complete(runId, part);
  }

  /** Whether every sub-counter of the part is full (one strongly consistent BatchGetItem). */
  async #complete(runId: string, part: PartSlot): Promise<boolean> {
    const shards = Array.from({ length: Math.min(PART_SHARDS, part.size) }, (_, shard) => shard);
    let pending: Record<string, unknown>[] = shards.map((shard) => partKey(runId, part.index, shard));
    const rows: Record<string, unknown>[] = [];
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt >= 5) throw this.#fault(runId, part, new Error('UnprocessedKeys after 5 attempts'));
      // UnprocessedKeys come in a successful answer, which the SDK's retry strategy never sees.
      if (attempt > 0) await sleep(fullJitterMs(attempt + 1, { baseMs: 50, capMs: 2_000 }));
      const out = await this.#doc
        .send(new BatchGetCommand({ RequestItems: { [this.#table]: { Keys: pending, ConsistentRead: true, ProjectionExpression: 'pk, recorded' } } }))
        .catch((error: unknown) => Promise.reject(this.#fault(runId, part, error)));
      rows.push(...(out.Responses?.[this.#table] ?? []));
      pending = (out.UnprocessedKeys?.[this.#table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
    }
    const counted = new Map(rows.map((row) => [String(row.pk), Number(row.recorded ?? 0)]));
    return shards.every((shard) => (counted.get(shardPk(runId, shard)) ?? 0) >= slotsInShard(part.size, shard));
  }

  #fault(runId: string, part: PartSlot, cause: unknown): HarnessError {
    return new HarnessError(`DynamoDB cannot count slot ${part.slot} of part ${part.index} of run ${runId} in ${this.#table}: ${awsErrorName(cause)}`, {
      cause,
    });
  }
}
