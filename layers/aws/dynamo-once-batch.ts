/**
 * Rows each written once, with ONE counter row, in as few TransactWriteItems as DynamoDB allows:
 * the loop a judge invocation's records (dynamo-record-batch.ts, `recordItems`) and a generate
 * invocation's cost bookings (dynamo-booking-batch.ts, `addCosts`) share (issue 35: ledger
 * writes per item). A transaction bills 2 write units per item it writes (per KB), so a row and
 * its counter written together cost 4; a batch writes every row put-if-absent and one update of
 * one counter row that adds the batch's totals: 2 per row and 2 per transaction.
 *
 * Limits ("TransactWriteItems", Amazon DynamoDB API Reference,
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html;
 * "Amazon DynamoDB Transactions: How it works", TransactWriteItems API,
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html):
 * at most 100 actions on 100 distinct items, no two on one item, 4 MB in all. A transaction here
 * takes at most 99 rows and the counter row (a row is ~100 bytes: 4 MB is never near); an id
 * repeated in the batch is written once. A cancelled transaction (TransactionCanceledException)
 * lists one CancellationReason per action, in the order of the request, `None` where nothing was
 * wrong ("CancellationReason", API Reference, API_CancellationReason.html):
 * - `ConditionalCheckFailed` on a row: written before (a redelivery). That entry is taken out and
 *   the rest sent again at once: a duplicate never fails its batch-mates;
 * - `ConditionalCheckFailed` on the counter row: the run is not in the ledger (a HarnessError);
 * - `TransactionConflict`: another transaction held one of the rows; sent again after a jittered
 *   wait (the SDK does not retry it: "Transaction conflict handling" on the page above),
 *   CONFLICT_RETRIES times.
 * Nothing applies unless all of it applies, so an entry is written once or not at all: a failure
 * leaves the batch to the message's redelivery, which writes what is not written yet. What a
 * cancelled transaction bills is taken as what it sent: "Capacity management for transactions" on
 * the page above bills the prepare and the commit write of every item, and the archived guide
 * (awsdocs/amazon-dynamodb-developer-guide, doc_source/transaction-apis.md) says no more; a
 * duplicate so costs its batch one resend (the simulation charges it: sim/cloud/sim-ledger.ts).
 */
import type { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { HarnessError } from '../core/errors.ts';
import { fullJitterMs } from '../core/backoff.ts';
import { awsErrorName } from './aws-errors.ts';

/** Rows per transaction: DynamoDB's 100 actions less the counter row. */
export const ROWS_PER_TRANSACTION = 99;
const CONFLICT_RETRIES = 8;
const CONFLICT_BACKOFF = { baseMs: 20, capMs: 1_000 };

export interface OnceBatchContext {
  doc: DynamoDBDocumentClient;
  table: string;
  runId: string;
  sleep: (ms: number) => Promise<void>;
  fault: (operation: string, runId: string, cause: unknown) => HarnessError;
}

/** What one kind of batch writes. */
export interface OnceBatch<T> {
  /** The ledger operation, for errors (`recordItems`, `addCosts`). */
  operation: string;
  /** The entry's id: its row's key; entries with one id are written once, the first. */
  idOf: (entry: T) => string;
  /** One transaction: each entry's row put-if-absent, in order, then ONE counter update (last). */
  transaction: (entries: readonly T[]) => TransactWriteCommand;
}

/** Writes `entries` of one run: per entry, true when written now, false when written before (or earlier in the batch). */
export async function writeOnceEach<T>(ctx: OnceBatchContext, batch: OnceBatch<T>, entries: readonly T[]): Promise<boolean[]> {
  const written = entries.map(() => false);
  const first = new Map<string, number>();
  entries.forEach((entry, index) => {
    const id = batch.idOf(entry);
    if (!first.has(id)) first.set(id, index);
  });
  const unique = [...first.values()];
  for (let start = 0; start < unique.length; start += ROWS_PER_TRANSACTION) {
    const chunk = unique.slice(start, start + ROWS_PER_TRANSACTION);
    for (const index of await sendChunk(ctx, batch, chunk, (i) => entries[i] as T)) written[index] = true;
  }
  return written;
}

/** One transaction of `pending` (indices into the batch), sent until it applies; returns the indices it wrote. */
async function sendChunk<T>(ctx: OnceBatchContext, batch: OnceBatch<T>, chunk: readonly number[], entryAt: (index: number) => T): Promise<number[]> {
  let pending = [...chunk];
  for (let conflicts = 0; pending.length > 0;) {
    try {
      await ctx.doc.send(batch.transaction(pending.map(entryAt)));
      return pending;
    } catch (error) {
      const reasons = cancellationCodes(error);
      if (reasons === undefined) throw ctx.fault(batch.operation, ctx.runId, error);
      if (reasons[pending.length] === 'ConditionalCheckFailed')
        throw new HarnessError(`cannot ${batch.operation}: run ${ctx.runId} is not in the ledger ${ctx.table}`, { cause: error });
      const duplicates = new Set(pending.filter((_, action) => reasons[action] === 'ConditionalCheckFailed'));
      if (duplicates.size > 0) {
        pending = pending.filter((index) => !duplicates.has(index));
        continue;
      }
      if (!reasons.includes('TransactionConflict') || ++conflicts >= CONFLICT_RETRIES) throw ctx.fault(batch.operation, ctx.runId, error);
      await ctx.sleep(fullJitterMs(conflicts, CONFLICT_BACKOFF));
    }
  }
  return [];
}

/** CancellationReasons codes of a TransactionCanceledException, or undefined for any other error. */
export function cancellationCodes(error: unknown): string[] | undefined {
  if (awsErrorName(error) !== 'TransactionCanceledException') return undefined;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((reason) => reason.Code ?? 'None');
}
