/**
 * The Lambda execution lane: per executor image, a work queue and a DockerImageFunction built
 * from its stage of `layers/images/Dockerfile`, in no VPC, consuming its queue with partial
 * batch failures. A judge runs no model code (its runner does, in a VPC of its own with no
 * route: runner-network.ts), so it needs no network isolation of its own and reaches S3,
 * DynamoDB, SQS and Lambda at their public endpoints: no interface endpoint bills by the hour. Each function is a judge: it holds the storage role, reads the
 * item's tests, and sends the program and test inputs to its image's runner function
 * (runners.ts), which runs them holding nothing. The image is only staged at synth; it is built at deploy.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Architecture } from './config.ts';
import { lambdaArchitecture, powertoolsEnvironment } from './defaults/function-defaults.ts';
import { EXECUTOR_READ_PATTERNS, EXECUTOR_WRITE_PATTERNS, LEDGER_WRITER_ACTIONS, ledgerAccess } from './defaults/iam-statements.ts';
import { grantObjectAccess } from './grants.ts';
import { visibilityTimeoutFor } from './defaults/queue-defaults.ts';
import { EXECUTOR_IMAGES, type ExecutorImage } from './languages.ts';
import { IMAGES_CONTEXT, imageBuildArgs } from './paths.ts';
import type { Runners } from './runners.ts';
import { WorkQueue } from './work-queue.ts';
import { MAPPING_MIN_CONCURRENCY } from '../layers/app/cloud/concurrency-budget.ts';

/** A Lambda executor's timeout; longer work goes to the Fargate lane. */
export const EXECUTOR_TIMEOUT = Duration.minutes(5);
/**
 * What a Lambda judge takes from its execute queue at once: several items, so the samples of
 * one task (the plan enqueues a task's samples one after another, layers/core/run/plan.ts)
 * tend to share a batch and hand off to the runner together, several per runner invocation
 * (layers/app/cloud/continuation.ts). "BatchSize … 10 (default) … MaximumBatchingWindowInSeconds"
 * (Lambda developer guide, "Lambda parameters for Amazon SQS event source mappings"): above 10
 * a batching window is required; the window waits at most this long for a fuller batch.
 */
export const JUDGE_BATCH = { batchSize: 10, maxBatchingWindow: Duration.seconds(5) };

/** The Docker platform matching the configured architecture. */
export function imagePlatform(architecture: Architecture): Platform {
  return architecture === 'arm64' ? Platform.LINUX_ARM64 : Platform.LINUX_AMD64;
}

/** Environment of every executor (Lambda or Fargate) of one image. */
export function executorEnvironment(image: ExecutorImage, bucket: s3.IBucket, ledger: dynamodb.ITable, aggregateQueue: sqs.IQueue): Record<string, string> {
  return {
    ...powertoolsEnvironment(`execute-${image.id}`),
    BUCKET_NAME: bucket.bucketName,
    TABLE_NAME: ledger.tableName,
    AGGREGATE_QUEUE_URL: aggregateQueue.queueUrl,
    EXECUTOR_LANGUAGES: image.languages.join(','),
    // Fargate judges sit in isolated subnets without an X-Ray endpoint; Lambda judges are not traced either.
    POWERTOOLS_TRACE_ENABLED: 'false',
  };
}

/** Storage access of every executor, Lambda or Fargate: read inputs, write records, count them. */
export function grantExecutorAccess(role: iam.IRole, bucket: s3.IBucket, ledger: dynamodb.ITable): void {
  grantObjectAccess(role, bucket, { read: EXECUTOR_READ_PATTERNS, write: EXECUTOR_WRITE_PATTERNS, list: ['datasets/', 'runs/'] });
  role.addToPrincipalPolicy(ledgerAccess(ledger, LEDGER_WRITER_ACTIONS));
}

/** Properties of {@link Executors}. */
export interface ExecutorsProps {
  architecture: Architecture;
  logRetentionDays: number;
  bucket: s3.IBucket;
  ledger: dynamodb.ITable;
  aggregateQueue: sqs.IQueue;
  /** The runner functions the executors judge for (model code runs there, not here). */
  runners: Runners;
  /**
   * Each Lambda judge mapping's `maxConcurrency` (undefined: none, when runners reserve nothing),
   * fitted under its runner's reservation and the account's unreserved pool (PolyevalConfig.concurrency).
   */
  judgeMaxConcurrency: number | undefined;
}

/** One execute queue + container function per executor image, keyed by image id. */
export class Executors extends Construct {
  readonly queues = new Map<string, WorkQueue>();
  readonly functions = new Map<string, lambda.DockerImageFunction>();

  constructor(scope: Construct, id: string, props: ExecutorsProps) {
    super(scope, id);
    for (const image of EXECUTOR_IMAGES) {
      const name = image.id.charAt(0).toUpperCase() + image.id.slice(1);
      const work = new WorkQueue(this, `${name}Queue`, {
        visibilityTimeout: visibilityTimeoutFor(EXECUTOR_TIMEOUT),
        maxAge: Duration.hours(1),
      });
      const logGroup = new logs.LogGroup(this, `${name}Logs`, {
        retention: props.logRetentionDays as logs.RetentionDays,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      const role = new iam.Role(this, `${name}Role`, {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
        description: `polyeval execute-${image.id}: read inputs, write records, count them`,
      });
      logGroup.grantWrite(role);
      grantExecutorAccess(role, props.bucket, props.ledger);
      props.aggregateQueue.grantSendMessages(role);
      const fn = new lambda.DockerImageFunction(this, `${name}Function`, {
        code: lambda.DockerImageCode.fromImageAsset(IMAGES_CONTEXT, { buildArgs: imageBuildArgs(image.id), platform: imagePlatform(props.architecture) }),
        description: `polyeval executor for ${image.languages.join(', ')}`,
        architecture: lambdaArchitecture(props.architecture),
        memorySize: image.judgeMemoryMb,
        timeout: EXECUTOR_TIMEOUT,
        role,
        logGroup,
        environment: { ...executorEnvironment(image, props.bucket, props.ledger, props.aggregateQueue), ...props.runners.attachJudge(image.id, role) },
      });
      // Never more judges at once than their runner has reserved (the Fargate lane's judges
      // counted) or than the unreserved pool holds beside the other functions.
      // Two mappings share the judge's cap (new items, and the runner's records): halves, each at least the minimum (2).
      const cap = props.judgeMaxConcurrency;
      const maxConcurrency = cap === undefined ? undefined : Math.max(MAPPING_MIN_CONCURRENCY, Math.ceil(cap / 2));
      const answersConcurrency = cap === undefined ? undefined : Math.max(MAPPING_MIN_CONCURRENCY, Math.floor(cap / 2));
      fn.addEventSource(
        new SqsEventSource(work.queue, { ...JUDGE_BATCH, reportBatchItemFailures: true, ...(maxConcurrency === undefined ? {} : { maxConcurrency }) }),
      );
      // The judge hands off to its runner and continues items from the runner's records (runners.ts).
      for (const [key, value] of Object.entries(props.runners.attachHandoff(image.id, fn, answersConcurrency))) fn.addEnvironment(key, value);
      this.queues.set(image.id, work);
      this.functions.set(image.id, fn);
    }
  }
}
