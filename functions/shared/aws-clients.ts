/**
 * SDK clients of the functions, built once per container from the standard environment
 * (region, credentials, AWS_ENDPOINT_URL_* overrides) and traced by the function's tracer.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoRunLedger, S3BlobStore } from '#aws/index.ts';
import { DynamoPartCounter } from '#aws/index.ts';
import { requireEnv } from './env.ts';
import type { Observability } from './observability.ts';

export interface StorageClients {
  s3: S3Client;
  sqs: SQSClient;
  dynamo: DynamoDBClient;
  store: S3BlobStore;
  ledger: DynamoRunLedger;
  /** Records per records part (layers/app/cloud/record-parts.ts). */
  parts: DynamoPartCounter;
  tableName: string;
}

/** S3 store on BUCKET_NAME, DynamoDB ledger on TABLE_NAME, an SQS client. */
export function storageClients(obs: Observability, env: NodeJS.ProcessEnv = process.env): StorageClients {
  const s3 = obs.tracer.captureAWSv3Client(new S3Client({}));
  const sqs = obs.tracer.captureAWSv3Client(new SQSClient({}));
  const dynamo = obs.tracer.captureAWSv3Client(new DynamoDBClient({}));
  const tableName = requireEnv('TABLE_NAME', env);
  return {
    s3,
    sqs,
    dynamo,
    store: new S3BlobStore({ client: s3, bucket: requireEnv('BUCKET_NAME', env) }),
    ledger: new DynamoRunLedger({ client: dynamo, tableName }),
    parts: new DynamoPartCounter({ client: dynamo, tableName }),
    tableName,
  };
}
