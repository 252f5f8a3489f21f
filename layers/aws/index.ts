/**
 * The AWS adapters of the ports (DESIGN §4): S3, SQS, DynamoDB, Athena. Each takes its SDK
 * client as an option, so Lambdas build clients once and tests point them at moto_server.
 */
export { S3BlobStore, guessContentType, type S3BlobStoreOptions } from './s3-blob-store.ts';
export { SqsWorkQueue, ID_ATTRIBUTE, parseSqsMessage, type SqsWorkQueueOptions } from './sqs-work-queue.ts';
export { applySqsBatchResponse, deliverSqsBatch, messageFromSqsRecord, queueArnFromUrl, toLambdaSqsEvent, type AppliedBatch } from './sqs-lambda-events.ts';
export { DynamoRunLedger, type DynamoRunLedgerOptions } from './dynamo-run-ledger.ts';
export { LEDGER_TABLE, ledgerTableDefinition, verdictAttribute } from './dynamo-ledger-schema.ts';
export { AthenaResultsQuery, convertAthenaValue, type AthenaResultsQueryOptions } from './athena-results-query.ts';
export {
  METRIC_COLUMNS,
  PARTITION_KEYS,
  RECORD_COLUMNS,
  TABLE_PREFIXES,
  leaderboardSql,
  sliceMetricsSql,
  sqlString,
  ATHENA_MAX_QUERY_BYTES,
  type ColumnSpec,
  type GlueType,
} from './athena-sql.ts';
export { DynamoPartCounter, type PartCounter, type PartSlot } from './dynamo-part-counter.ts';
export { dynamoSetRunItems } from './dynamo-run-items.ts';
export { EVENT_SOURCE, EventBridgePublisher } from './eventbridge-publisher.ts';
export { executeApiSigner, type ApiCredentials, type SignRequest } from './execute-api-signer.ts';
export { LambdaInvoker, type InvokeResult } from './lambda-invoker.ts';
export { ASYNC_EVENTS_PERIOD_SECONDS, readAsyncEventsReceived, type AsyncEventsReading } from './lambda-async-events.ts';
export { DynamoQueueAlarmStore, readQueues, watchedQueuesOf } from './queue-alarm-store.ts';
export { moveMessages, peekMessages, sqsQueueDepth } from './sqs-dead-letters.ts';
export { returnLater } from './sqs-visibility.ts';
export { isPermanentAwsFailure } from './aws-errors.ts';
export { readProviderKeys } from './ssm-provider-keys.ts';
