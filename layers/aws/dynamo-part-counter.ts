/**
 * Counts recorded items per records part (one plan chunk) in the ledger table, so the stage
 * that records a part's last item can have the part's Parquet file written while the run goes
 * on. One UpdateItem per item, exactly once per slot: the part row keeps the counted slots in a
 * number set and the update is conditional on the slot not being in it (a redelivery changes
 * nothing). The set holds small numbers (≤ a few KB per part), so each write stays cheap.
 *
 * Row: pk `RUN#<runId>`, sk `PART#<index>` (5 digits), attributes `slots` (NS), `recorded` (N).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { HarnessError } from '../core/errors.ts';
import { awsErrorName } from './aws-errors.ts';
import { runKey } from './dynamo-ledger-schema.ts';

/** Sort-key prefix of part rows. */
export const PART_PREFIX = 'PART#';

export interface PartCounter {
  /** Counts `slot` of part `part` once; resolves with the part's recorded count afterwards. */
  count(runId: string, part: number, slot: number): Promise<number>;
}

export class DynamoPartCounter implements PartCounter {
  readonly #doc: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(options: { client: DynamoDBClient; tableName: string }) {
    this.#doc = DynamoDBDocumentClient.from(options.client);
    this.#table = options.tableName;
  }

  async count(runId: string, part: number, slot: number): Promise<number> {
    const Key = { pk: runKey(runId).pk, sk: `${PART_PREFIX}${String(part).padStart(5, '0')}` };
    try {
      const out = await this.#doc.send(
        new UpdateCommand({
          TableName: this.#table,
          Key,
          UpdateExpression: 'ADD slots :slot, recorded :one',
          ConditionExpression: 'attribute_not_exists(slots) OR NOT contains(slots, :n)',
          ExpressionAttributeValues: { ':slot': new Set([slot]), ':one': 1, ':n': slot },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(out.Attributes?.recorded ?? 0);
    } catch (error) {
      if (awsErrorName(error) !== 'ConditionalCheckFailedException') {
        throw new HarnessError(`DynamoDB cannot count slot ${slot} of part ${part} of run ${runId} in ${this.#table}: ${awsErrorName(error)}`, {
          cause: error,
        });
      }
      // Counted before (a redelivery, perhaps after a crash that lost the compaction message): report the count.
      const row = await this.#doc.send(new GetCommand({ TableName: this.#table, Key, ConsistentRead: true }));
      return Number(row.Item?.recorded ?? 0);
    }
  }
}
