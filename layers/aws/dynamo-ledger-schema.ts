/**
 * The run ledger's single DynamoDB table — its key design, index and row mapping — shared
 * by the adapter, the CDK table construct and the tests that create it on moto.
 *
 * Rows:
 * - run row   pk `RUN#<runId>`, sk `RUN`: summary, counters `recorded`, `verdict_<V>`,
 *   `costUsd`; plus `gsi1pk = 'RUN'`, `gsi1sk = '<createdAt>#<runId>'` for listing.
 * - item row  pk `RUN#<runId>`, sk `ITEM#<itemId>`: exists once the item was counted.
 *
 * `listRuns` queries the sparse GSI `runs-by-created` (only run rows carry `gsi1pk`)
 * rather than scanning: a Scan reads every item row (100k per large run) to find a handful
 * of run rows. The index projects KEYS_ONLY on purpose: the run row's counters change on
 * every recorded item, and with projected counters each of those updates would also write
 * to the index's single `RUN` partition; with keys only it is written once per run, and
 * `listRuns` fetches the rows with BatchGetItem.
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

/** Attribute and index names of the ledger table. */
export const LEDGER_TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  runsIndex: { name: 'runs-by-created', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'KEYS_ONLY' },
} as const;

/** The CreateTable input (on-demand billing) for tests and local tooling; infra mirrors it. */
export function ledgerTableDefinition(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey, runsIndex } = LEDGER_TABLE;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: partitionKey, AttributeType: 'S' },
      { AttributeName: sortKey, AttributeType: 'S' },
      { AttributeName: runsIndex.partitionKey, AttributeType: 'S' },
      { AttributeName: runsIndex.sortKey, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: runsIndex.name,
        KeySchema: [
          { AttributeName: runsIndex.partitionKey, KeyType: 'HASH' },
          { AttributeName: runsIndex.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: runsIndex.projection },
      },
    ],
  };
}

/** Primary key of a run's row. */
export function runKey(runId: string): { pk: string; sk: string } {
  return { pk: `RUN#${runId}`, sk: RUN_SK };
}

/** The run row's counter attribute for a verdict. */
export function verdictAttribute(verdict: Verdict): string {
  return `verdict_${verdict}`;
}

/** Maps a run row to the port's RunSummary (zero counters are left out of `verdicts`). */
export function toSummary(row: Row): RunSummary {
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
    costUsd: Number(row.costUsd ?? 0),
    createdAt: String(row.createdAt),
    updatedAt: String(row.updatedAt),
  };
  if (typeof row.reason === 'string') summary.reason = row.reason;
  return summary;
}
