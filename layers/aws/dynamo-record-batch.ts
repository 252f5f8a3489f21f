/**
 * A batch of records in as few TransactWriteItems as DynamoDB allows (issue 35: ledger writes
 * per item). `recordItem` is a 2-action transaction per item — the item row put-if-absent and
 * its shard's count row — and a transaction bills 2 write units per item it writes (per KB), so
 * each record cost 4 WRU. A batch writes every item row put-if-absent and ONE update of one count
 * row that adds the batch's totals: 2 WRU per item and 2 per transaction.
 *
 * The transactions — at most 99 item rows and the count row each, an item counted before taken
 * out and the rest sent again, conflicts retried — are dynamo-once-batch.ts's, shared with a
 * generate invocation's cost bookings (dynamo-booking-batch.ts). Nothing applies unless all of it
 * applies, so an item is counted once or not at all: a failure leaves the batch's items to the
 * message's redelivery, which counts what is not counted yet.
 *
 * Which count row: the first item's shard's (dynamo-ledger-schema.ts itemPlace). Item rows stay
 * in their own shards (recordedItems and reviseItem find them by id); only the totals of a batch
 * land on one of the run's count rows. The rows a batch touches still spread over the shards —
 * a judge's batches start at different items — and readers sum every shard, so a run's totals are
 * right whichever row holds them (a revised item moves its verdict on its own shard's row, which
 * may then hold a negative count of one verdict: the sums stay exact).
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ItemCount } from '../core/ports.ts';
import type { Verdict } from '../core/types.ts';
import { itemPlace, verdictAttribute, type Row } from './dynamo-ledger-schema.ts';
import { ROWS_PER_TRANSACTION, writeOnceEach, type OnceBatchContext } from './dynamo-once-batch.ts';

/** Item rows per transaction: DynamoDB's 100 actions less the count row. */
export const ITEMS_PER_TRANSACTION = ROWS_PER_TRANSACTION;

export interface RecordBatchContext extends OnceBatchContext {
  /** The run's shard count (0: a run written before shards). */
  shards: number;
  now: string;
}

/** Counts `items` of one run: per item, true when counted now, false when counted before (or earlier in the batch). */
export function recordBatch(ctx: RecordBatchContext, items: readonly ItemCount[]): Promise<boolean[]> {
  return writeOnceEach(ctx, { operation: 'recordItems', idOf: (item) => item.itemId, transaction: (batch) => transaction(ctx, batch) }, items);
}

/** The item rows (put if absent) and one update of the first item's count row by the batch's totals. */
function transaction(ctx: RecordBatchContext, items: readonly ItemCount[]): TransactWriteCommand {
  const tally = new Map<Verdict, number>();
  for (const { verdict } of items) tally.set(verdict, (tally.get(verdict) ?? 0) + 1);
  const verdicts = [...tally.entries()];
  const names: Record<string, string> = Object.fromEntries(verdicts.map(([verdict], i) => [`#v${i}`, verdictAttribute(verdict)]));
  const values: Row = { ':n': items.length, ':now': ctx.now, ...Object.fromEntries(verdicts.map(([, count], i) => [`:v${i}`, count])) };
  const adds = verdicts.map((_, i) => `#v${i} :v${i}`).join(', ');
  const { counterKey } = itemPlace(ctx.runId, (items[0] as ItemCount).itemId, ctx.shards);
  return new TransactWriteCommand({
    TransactItems: [
      ...items.map(({ itemId, verdict }) => ({
        Put: {
          TableName: ctx.table,
          Item: { ...itemPlace(ctx.runId, itemId, ctx.shards).itemKey, verdict, recordedAt: ctx.now },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      })),
      {
        Update: {
          TableName: ctx.table,
          Key: counterKey,
          UpdateExpression: `ADD recorded :n, ${adds} SET updatedAt = :now`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
    ],
  });
}

export { cancellationCodes } from './dynamo-once-batch.ts';
