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
 * - item row      pk `RUN#<runId>`, sk `ITEM#<itemId>`: exists once the item was counted.
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

/** The run row's counter attribute for a verdict. */
export function verdictAttribute(verdict: Verdict): string {
  return `verdict_${verdict}`;
}

/**
 * Maps a run row (and its cost row, when there is one) to the port's RunSummary (zero counters
 * are left out of `verdicts`). The spend is the cost row's plus what an older run row holds.
 */
export function toSummary(row: Row, cost?: Row): RunSummary {
  const verdicts: Partial<Record<Verdict, number>> = {};
  for (const verdict of VERDICTS) {
    const count = Number(row[verdictAttribute(verdict)] ?? 0);
    if (count > 0) verdicts[verdict] = count;
  }
  const summary: RunSummary = {
    runId: String(row.runId),
    benchmark: String(row.benchmark),
    model: String(row.model),
    status: row.status as RunStatus,
    items: Number(row.items ?? 0),
    recorded: Number(row.recorded ?? 0),
    verdicts,
    costUsd: Number(row.costUsd ?? 0) + Number(cost?.costUsd ?? 0),
    createdAt: String(row.createdAt),
    updatedAt: String(row.updatedAt),
  };
  if (typeof row.reason === 'string') summary.reason = row.reason;
  return summary;
}
