/**
 * The stage functions consuming the stage queues: plan (expands a run in chunks, the first chunk
 * sending every later chunk's message), generate (calls the provider at most `generateMaxConcurrency` × 5 at a time, routes each
 * sample to its language's execute queue), aggregate (metrics, report, `RunCompleted` event).
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { PolyevalConfig } from './config.ts';
import { LEDGER_CONTROL_ACTIONS, LEDGER_WRITER_ACTIONS, ledgerAccess } from './defaults/iam-statements.ts';
import { grantObjectAccess } from './grants.ts';
import { EXECUTOR_IMAGES, executeQueueEnvName } from './languages.ts';
import { acknowledge } from './nag.ts';
import { modelInvocationFindings, modelInvocationReason, modelInvocationStatements } from './defaults/model-invocation.ts';
import { PolyevalFunction } from './node-function.ts';
import { STAGE_TIMEOUTS, type StageQueues } from './queues.ts';
import type { WorkQueue } from './work-queue.ts';
import { generateMapping } from '../layers/app/cloud/generate-mapping.ts';
import { FUNCTION_MEMORY } from '../layers/app/cloud/function-memory.ts';

/** Properties of {@link Pipeline}. */
export interface PipelineProps {
  config: PolyevalConfig;
  bucket: s3.IBucket;
  ledger: dynamodb.ITable;
  queues: StageQueues;
  /** Lambda execute queues by executor image id. */
  executeQueues: ReadonlyMap<string, WorkQueue>;
  /** Fargate execute queues by executor image id (empty without the Fargate lane). */
  fargateQueues: ReadonlyMap<string, WorkQueue>;
}

/** Execute queue URLs by sample language, as generate's environment. */
export function executeQueueEnvironment(lambdaQueues: ReadonlyMap<string, WorkQueue>, fargateQueues: ReadonlyMap<string, WorkQueue>): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const image of EXECUTOR_IMAGES) {
    for (const language of image.languages) {
      const lambdaQueue = lambdaQueues.get(image.id);
      const fargateQueue = fargateQueues.get(image.id);
      if (lambdaQueue) environment[executeQueueEnvName(language, 'lambda')] = lambdaQueue.queue.queueUrl;
      if (fargateQueue) environment[executeQueueEnvName(language, 'fargate')] = fargateQueue.queue.queueUrl;
    }
  }
  return environment;
}

/** plan, generate and aggregate functions, their event sources and the RunCompleted bus. */
export class Pipeline extends Construct {
  readonly plan: PolyevalFunction;
  readonly generate: PolyevalFunction;
  readonly aggregate: PolyevalFunction;
  readonly bus: events.EventBus;

  constructor(scope: Construct, id: string, props: PipelineProps) {
    super(scope, id);
    const { config, bucket, ledger, queues } = props;
    const common = { architecture: config.architecture, logRetentionDays: config.logRetentionDays };
    const storageEnv = { BUCKET_NAME: bucket.bucketName, TABLE_NAME: ledger.tableName };
    this.bus = new events.EventBus(this, 'Bus', { description: 'polyeval run lifecycle events (RunCompleted)' });

    this.plan = new PolyevalFunction(this, 'Plan', {
      ...common,
      name: 'plan',
      description: 'Expands a run into work items, one chunk per invocation',
      timeout: STAGE_TIMEOUTS.plan,
      memorySize: FUNCTION_MEMORY.plan.memoryMb,
      environment: { ...storageEnv, PLAN_QUEUE_URL: queues.plan.queue.queueUrl, GENERATE_QUEUE_URL: queues.generate.queue.queueUrl },
    });
    // results/runs/*: the kept manifest copy the API reads after runs/ expires (layers/app/cloud/context.ts).
    grantObjectAccess(this.plan.role, bucket, { read: ['datasets/*', 'runs/*'], write: ['runs/*', 'results/runs/*'], list: ['datasets/', 'runs/'] });
    this.plan.role.addToPrincipalPolicy(ledgerAccess(ledger, LEDGER_CONTROL_ACTIONS));
    queues.plan.queue.grantSendMessages(this.plan.role);
    queues.generate.queue.grantSendMessages(this.plan.role);
    // Capped so the account's unreserved pool holds every function at once (concurrency-budget.ts).
    this.plan.function.addEventSource(
      new SqsEventSource(queues.plan.queue, { batchSize: 1, maxConcurrency: config.concurrency.plan, reportBatchItemFailures: true }),
    );

    this.generate = new PolyevalFunction(this, 'Generate', {
      ...common,
      name: 'generate',
      description: 'Calls the model provider for one batch of work items',
      timeout: STAGE_TIMEOUTS.generate,
      memorySize: FUNCTION_MEMORY.generate.memoryMb,
      environment: {
        ...storageEnv,
        AGGREGATE_QUEUE_URL: queues.aggregate.queue.queueUrl,
        ...executeQueueEnvironment(props.executeQueues, props.fargateQueues),
      },
    });
    // runs/*/messages/*: generations too large for an SQS message (layers/app/cloud/large-messages.ts).
    grantObjectAccess(this.generate.role, bucket, {
      read: ['datasets/*', 'runs/*'],
      write: ['runs/*/items/*', 'runs/*/messages/*'],
      list: ['datasets/', 'runs/'],
    });
    for (const statement of [ledgerAccess(ledger, LEDGER_WRITER_ACTIONS), ...modelInvocationStatements(Stack.of(this))]) {
      this.generate.role.addToPrincipalPolicy(statement);
    }
    queues.aggregate.queue.grantSendMessages(this.generate.role);
    for (const work of [...props.executeQueues.values(), ...props.fargateQueues.values()]) work.queue.grantSendMessages(this.generate.role);
    // generateMaxConcurrency × 5 model calls in flight, as few invocations as hold them: each bills its slowest call's wait once for its whole batch (generate-mapping.ts).
    const mapping = generateMapping(config.generateMaxConcurrency);
    this.generate.function.addEventSource(
      new SqsEventSource(queues.generate.queue, {
        batchSize: mapping.batchSize,
        ...(mapping.maxBatchingWindowS > 0 ? { maxBatchingWindow: Duration.seconds(mapping.maxBatchingWindowS) } : {}),
        maxConcurrency: mapping.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    for (const finding of modelInvocationFindings(Stack.of(this))) {
      acknowledge(this.generate.role, finding, modelInvocationReason());
    }

    this.aggregate = new PolyevalFunction(this, 'Aggregate', {
      ...common,
      name: 'aggregate',
      description: 'Computes metrics, writes the report and emits RunCompleted',
      timeout: STAGE_TIMEOUTS.aggregate,
      memorySize: FUNCTION_MEMORY.aggregate.memoryMb,
      environment: { ...storageEnv, EVENT_BUS_NAME: this.bus.eventBusName },
    });
    grantObjectAccess(this.aggregate.role, bucket, {
      read: ['runs/*', 'results/*'],
      write: ['results/*', 'reports/*', 'runs/*/summary.json'],
      list: ['runs/', 'results/'],
    });
    this.aggregate.role.addToPrincipalPolicy(ledgerAccess(ledger, LEDGER_CONTROL_ACTIONS));
    this.bus.grantPutEventsTo(this.aggregate.role);
    this.aggregate.function.addEventSource(
      new SqsEventSource(queues.aggregate.queue, { batchSize: 1, maxConcurrency: config.concurrency.aggregate, reportBatchItemFailures: true }),
    );
  }
}
