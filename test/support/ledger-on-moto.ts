/**
 * A DynamoRunLedger on its own moto_server table with run `r1`, for the batch-write tests
 * (test/integration/aws/dynamo-record-batch.test.ts, dynamo-booking-batch.test.ts): it counts the
 * TransactWriteItems calls that reach moto, and can cancel the first ones with DynamoDB's
 * `TransactionConflict` at the SDK client's boundary — moto never reports one (it applies one
 * request at a time, and these suites serialise moto_server), a real table does when another
 * transaction holds a row.
 */
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoRunLedger } from '#aws/index.ts';
import { awsClientConfig, createLedgerTable, type Moto } from './moto.ts';

export interface LedgerOnMoto {
  ledger: DynamoRunLedger;
  dynamo: DynamoDBClient;
  tableName: string;
  /** The action counts of the TransactWriteItems calls that reached moto after the run was created (cancelled ones too). */
  transactions: () => number[];
}

/** `conflicts` of the ledger's first transactions are cancelled with TransactionConflict on their last action. */
export async function ledgerOnMoto(moto: Moto, tableName: string, conflicts = 0): Promise<LedgerOnMoto> {
  const dynamo = new DynamoDBClient(awsClientConfig(moto.endpoint));
  await createLedgerTable(dynamo, tableName);
  let sent: number[] = [];
  let toConflict = 0;
  dynamo.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { TransactItems?: unknown[] };
      if (input.TransactItems !== undefined) {
        if (toConflict > 0) {
          toConflict -= 1;
          const reasons = input.TransactItems.map((_, i) => ({ Code: i === input.TransactItems!.length - 1 ? 'TransactionConflict' : 'None' }));
          throw new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: { httpStatusCode: 400 }, CancellationReasons: reasons });
        }
        sent.push(input.TransactItems.length);
      }
      return next(args);
    },
    { step: 'initialize', name: 'countTransactions' },
  );
  const ledger = new DynamoRunLedger({ client: dynamo, tableName, sleep: () => Promise.resolve() });
  await ledger.createRun({ runId: 'r1', benchmark: 'rocode', model: 'bedrock:m', status: 'running', items: 200, createdAt: '2025-03-04T00:00:00.000Z' });
  // Counted (and conflicted) from here: createRun's own transaction is not the test's.
  sent = [];
  toConflict = conflicts;
  return { ledger, dynamo, tableName, transactions: () => sent };
}
