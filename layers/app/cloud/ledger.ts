/**
 * The one ledger write the RunLedger port does not have: the api creates a run row before the
 * dataset is loaded (items 0), and plan fills in the planned item count. Until that count is
 * set no work item is sent, so the completion check (recorded == items) can never fire early.
 *
 * The row's key follows layers/aws/dynamo-ledger-schema.ts (pk `RUN#<runId>`, sk `RUN`).
 * TODO(lead): a `setItems` on RunLedger (both adapters) would replace this file.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { HarnessError } from '#core/errors.ts';

/** Sets a run's planned item count. */
export type SetRunItems = (runId: string, items: number) => Promise<void>;

export function dynamoSetRunItems(client: DynamoDBClient, tableName: string): SetRunItems {
  const doc = DynamoDBDocumentClient.from(client);
  return async (runId, items) => {
    try {
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: `RUN#${runId}`, sk: 'RUN' },
          UpdateExpression: 'SET #items = :items',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#items': 'items' },
          ExpressionAttributeValues: { ':items': items },
        }),
      );
    } catch (cause) {
      throw new HarnessError(`cannot set the item count of run ${runId} in ${tableName}`, { cause });
    }
  };
}
