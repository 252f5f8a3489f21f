/**
 * The DynamoDB adapter of the SetRunItems port (layers/core/ports.ts): the one ledger write
 * the RunLedger port does not have, the planned item count plan fills in.
 *
 * The row's key follows dynamo-ledger-schema.ts (pk `RUN#<runId>`, sk `RUN`).
 * TODO(lead): a `setItems` on RunLedger (both adapters) would replace this file.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { HarnessError } from '#core/errors.ts';
import type { SetRunItems } from '#core/ports.ts';

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
