/**
 * A batch of records in as few TransactWriteItems as DynamoDB allows (issue 35: ledger writes
 * per item). `recordItem` is a 2-action transaction per item — the item row put-if-absent and
 * its shard's count row — and a transaction bills 2 write units per item it writes (per KB), so
 * each record cost 4 WRU. A batch writes every item row put-if-absent and ONE update of one count
 * row that adds the batch's totals: 2 WRU per item and 2 per transaction.
 *
 * Limits ("TransactWriteItems", Amazon DynamoDB API Reference,
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html):
 * at most 100 actions, no two on one item, 4 MB in all. A transaction here takes at most 99 item
 * rows and the count row (an item row is ~100 bytes: 4 MB is never near); an id repeated in the
 * batch is written once. A cancelled transaction (TransactionCanceledException) lists one
 * CancellationReason per action, in the order of the request, `None` where nothing was wrong:
 * - `ConditionalCheckFailed` on an item row: counted before (a redelivery). That item is taken
 *   out and the rest sent again at once: a duplicate never fails its batch-mates;
 * - `ConditionalCheckFailed` on the count row: the run is not in the ledger (a HarnessError);
 * - `TransactionConflict`: another transaction held one of the rows; sent again after a jittered
 *   wait (the SDK does not retry it: dynamo-run-ledger.ts #sendTwoPart), CONFLICT_RETRIES times.
 * Nothing applies unless all of it applies, so an item is counted once or not at all: a failure
 * leaves the batch's items to the message's redelivery, which counts what is not counted yet.
 *
 * Which count row: the first item's shard's (dynamo-ledger-schema.ts itemPlace). Item rows stay
 * in their own shards (recordedItems and reviseItem find them by id); only the totals of a batch
 * land on one of the run's count rows. The rows a batch touches still spread over the shards —
 * a judge's batches start at different items — and readers sum every shard, so a run's totals are
 * right whichever row holds them (a revised item moves its verdict on its own shard's row, which
 * may then hold a negative count of one verdict: the sums stay exact).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ItemCount } from '../core/ports.ts';
import type { Verdict } from '../core/types.ts';
import { HarnessError } from '../core/errors.ts';
import { fullJitterMs } from '../core/backoff.ts';
import { awsErrorName } from './aws-errors.ts';
import { itemPlace, verdictAttribute, type Row } from './dynamo-ledger-schema.ts';

/** Item rows per transaction: DynamoDB's 100 actions less the count row. */
export const ITEMS_PER_TRANSACTION = 99;
const CONFLICT_RETRIES = 8;
const CONFLICT_BACKOFF = { baseMs: 20, capMs: 1_000 };

export interface RecordBatchContext {
  doc: DynamoDBDocumentClient;
  table: string;
  runId: string;
  /** The run's shard count (0: a run written before shards). */
  shards: number;
  now: string;
  sleep: (ms: number) => Promise<void>;
  fault: (operation: string, runId: string, cause: unknown) => HarnessError;
}

/** Counts `items` of one run: per item, true when counted now, false when counted before (or earlier in the batch). */
export async function recordBatch(ctx: RecordBatchContext, items: readonly ItemCount[]): Promise<boolean[]> {
  const counted = items.map(() => false);
  const first = new Map<string, number>();
  items.forEach((item, index) => {
    if (!first.has(item.itemId)) first.set(item.itemId, index);
  });
  const unique = [...first.values()];
  for (let start = 0; start < unique.length; start += ITEMS_PER_TRANSACTION) {
    const chunk = unique.slice(start, start + ITEMS_PER_TRANSACTION);
    for (const index of await sendChunk(ctx, chunk, (i) => items[i] as ItemCount)) counted[index] = true;
  }
  return counted;
}

/** One transaction of `pending` (indices into the batch), sent until it applies; returns the indices it counted. */
async function sendChunk(ctx: RecordBatchContext, chunk: readonly number[], itemAt: (index: number) => ItemCount): Promise<number[]> {
  let pending = [...chunk];
  for (let conflicts = 0; pending.length > 0;) {
    try {
      await ctx.doc.send(transaction(ctx, pending.map(itemAt)));
      return pending;
    } catch (error) {
      const reasons = cancellationCodes(error);
      if (reasons === undefined) throw ctx.fault('recordItems', ctx.runId, error);
      if (reasons[pending.length] === 'ConditionalCheckFailed')
        throw new HarnessError(`cannot recordItems: run ${ctx.runId} is not in the ledger ${ctx.table}`, { cause: error });
      const duplicates = new Set(pending.filter((_, action) => reasons[action] === 'ConditionalCheckFailed'));
      if (duplicates.size > 0) {
        pending = pending.filter((index) => !duplicates.has(index));
        continue;
      }
      if (!reasons.includes('TransactionConflict') || ++conflicts >= CONFLICT_RETRIES) throw ctx.fault('recordItems', ctx.runId, error);
      await ctx.sleep(fullJitterMs(conflicts, CONFLICT_BACKOFF));
    }
  }
  return [];
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

/** CancellationReasons codes of a TransactionCanceledException, or undefined for any other error. */
export function cancellationCodes(error: unknown): string[] | undefined {
  if (awsErrorName(error) !== 'TransactionCanceledException') return undefined;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((reason) => reason.Code ?? 'None');
}
