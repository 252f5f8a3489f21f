/**
 * The batch stage of `remote run --batch` (functions/batch on an EventBridge Scheduler rate):
 * it creates and polls the runs' batch jobs and routes their results like generate does. With
 * it, the service role Bedrock batch inference assumes to read a job's records and write its
 * answers: limited to the bucket's `batch-inference/` prefix, assumable only by Bedrock on
 * behalf of this account's model invocation jobs (Bedrock User Guide, "Create a custom
 * service role for batch inference": trust `bedrock.amazonaws.com` with `aws:SourceAccount`
 * and `aws:SourceArn` conditions; s3:GetObject, s3:ListBucket on the input, s3:PutObject on
 * the output).
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { BEDROCK_BATCH_PREFIX } from '../layers/app/cloud/batch-clients.ts';
import { BATCH_STAGE_MEMORY_MB } from '../layers/app/cloud/function-memory.ts';
import type { PolyevalConfig } from './config.ts';
import { LEDGER_CONTROL_ACTIONS, ledgerAccess } from './defaults/iam-statements.ts';
import { grantObjectAccess } from './grants.ts';
import { acknowledgeObjectPatterns, acknowledgeResources } from './nag.ts';
import { PolyevalFunction } from './node-function.ts';
import { executeQueueEnvironment } from './pipeline.ts';
import type { WorkQueue } from './work-queue.ts';
import { BATCH_RESERVED_CONCURRENCY } from '../layers/app/cloud/concurrency-budget.ts';

/** How often the batch stage looks at the jobs: batch jobs take minutes to hours, and the watchdog's stall window is 30 minutes. */
export const BATCH_RATE = Duration.minutes(5);

export interface BatchStageProps {
  config: PolyevalConfig;
  bucket: s3.IBucket;
  ledger: dynamodb.ITable;
  aggregateQueue: WorkQueue['queue'];
  executeQueues: ReadonlyMap<string, WorkQueue>;
  fargateQueues: ReadonlyMap<string, WorkQueue>;
  /** The plan function: it sizes a batch run's jobs by the same quotas. */
  plan: PolyevalFunction;
}

export class BatchStage extends Construct {
  readonly handler: PolyevalFunction;
  /** The role Bedrock assumes for a model invocation job. */
  readonly serviceRole: iam.Role;
  readonly schedule: scheduler.Schedule;

  constructor(scope: Construct, id: string, props: BatchStageProps) {
    super(scope, id);
    const { config, bucket, ledger } = props;
    const stack = Stack.of(this);
    const arn = (resource: string, account = true, region: string = stack.region): string =>
      `arn:${stack.partition}:bedrock:${region}:${account ? stack.account : ''}:${resource}`;
    const jobs = arn('model-invocation-job/*');
    const prefix = BEDROCK_BATCH_PREFIX;

    this.serviceRole = new iam.Role(this, 'BedrockServiceRole', {
      description: 'Bedrock batch inference: read the job records and write the answers under batch-inference/ of the results bucket',
      assumedBy: new iam.ServicePrincipal('bedrock.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': stack.account }, ArnLike: { 'aws:SourceArn': jobs } },
      }),
    });
    this.serviceRole.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [bucket.arnForObjects(`${prefix}*`)] }),
    );
    this.serviceRole.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn], conditions: { StringLike: { 's3:prefix': [`${prefix}*`] } } }),
    );
    // A job names a model or an inference profile. With a cross-Region profile (`us.`, `eu.`,
    // `apac.`, `global.`), Bedrock needs InvokeModel on the profile and on the foundation model in
    // every Region the profile routes to, a `global.` one also on the Region-less model ARN
    // (Bedrock User Guide, "Create a custom service role for batch inference" and "Prerequisites
    // for inference profiles"). The model is chosen per run; only Bedrock, for this account's
    // jobs, can assume this role (its trust policy above), so the patterns stay that wide.
    const invokable = [
      arn('foundation-model/*', false, '*'),
      arn('foundation-model/*', false, ''),
      arn('inference-profile/*', true, '*'),
      arn('application-inference-profile/*'),
    ];
    this.serviceRole.addToPrincipalPolicy(new iam.PolicyStatement({ sid: 'InvokeModelsAndProfiles', actions: ['bedrock:InvokeModel'], resources: invokable }));
    acknowledgeResources(
      this.serviceRole,
      invokable,
      'A batch job invokes the model or inference profile its run names, chosen per run; a cross-Region profile routes to the model in other Regions. Only Bedrock may assume this role, for this account’s jobs.',
    );
    acknowledgeObjectPatterns(
      this.serviceRole,
      bucket,
      [`${prefix}*`],
      `Bedrock reads a job's records and writes its answers under ${prefix}<job>/, named per run at run time.`,
    );

    this.handler = new PolyevalFunction(this, 'Handler', {
      name: 'batch',
      architecture: config.architecture,
      logRetentionDays: config.logRetentionDays,
      description: 'Creates, polls and reads back the batch jobs of --batch runs; stops those of cancelled runs',
      timeout: Duration.minutes(10),
      // One pass at a time: a pass may run up to 10 minutes, past the next 5-minute tick, and
      // Anthropic's Message Batches have no lookup by name, so two overlapping passes could submit
      // the same job twice. Scheduler invokes asynchronously; a throttled tick waits in Lambda's
      // async queue (retried up to 6 hours) until the running pass ends ("Lambda reserved
      // concurrency", "Asynchronous invocation" in the Lambda Developer Guide). An account too
      // small to reserve (runnerReservedConcurrency 0) reserves nothing here either.
      ...(config.runnerReservedConcurrency > 0 ? { reservedConcurrentExecutions: BATCH_RESERVED_CONCURRENCY } : {}),
      memorySize: BATCH_STAGE_MEMORY_MB,
      environment: {
        BUCKET_NAME: bucket.bucketName,
        TABLE_NAME: ledger.tableName,
        AGGREGATE_QUEUE_URL: props.aggregateQueue.queueUrl,
        BATCH_ROLE_ARN: this.serviceRole.roleArn,
        ...(config.batchQuotas ? { BATCH_QUOTAS: JSON.stringify(config.batchQuotas) } : {}),
        ...(config.batchTimeoutHours ? { BATCH_TIMEOUT_HOURS: String(config.batchTimeoutHours) } : {}),
        ...executeQueueEnvironment(props.executeQueues, props.fargateQueues),
      },
    });
    if (config.batchQuotas) props.plan.function.addEnvironment('BATCH_QUOTAS', JSON.stringify(config.batchQuotas));
    const role = this.handler.role;
    // runs/*/batches/*: the job documents; runs/*/items/*, runs/*/messages/*: what generate writes; batch-inference/*: the jobs' files.
    grantObjectAccess(role, bucket, {
      read: ['datasets/*', 'runs/*', `${prefix}*`],
      write: ['runs/*/items/*', 'runs/*/messages/*', 'runs/*/batches/*', `${prefix}*`],
      list: ['runs/', prefix],
    });
    role.addToPrincipalPolicy(ledgerAccess(ledger, LEDGER_CONTROL_ACTIONS));
    props.aggregateQueue.grantSendMessages(role);
    for (const work of [...props.executeQueues.values(), ...props.fargateQueues.values()]) work.queue.grantSendMessages(role);
    const jobResources = [jobs, arn('foundation-model/*', false), arn('inference-profile/*')];
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'BatchInferenceJobs',
        actions: ['bedrock:CreateModelInvocationJob', 'bedrock:GetModelInvocationJob', 'bedrock:StopModelInvocationJob'],
        resources: jobResources,
      }),
    );
    // ListModelInvocationJobs (finding a job by name after a restart) takes no resource-level scope.
    role.addToPrincipalPolicy(new iam.PolicyStatement({ sid: 'FindBatchJobs', actions: ['bedrock:ListModelInvocationJobs'], resources: ['*'] }));
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.serviceRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'bedrock.amazonaws.com' } },
      }),
    );
    const reason =
      'A batch job and its model are chosen per run: the jobs of this account and region, its foundation models and inference profiles; ListModelInvocationJobs takes no resource.';
    acknowledgeResources(role, [...jobResources, '*'], reason);

    const schedulerRole = new iam.Role(this, 'SchedulerRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com'),
      description: 'EventBridge Scheduler: invoke the polyeval batch stage',
    });
    acknowledgeResources(
      schedulerRole,
      [`${this.handler.function.functionArn}:*`],
      'The Scheduler target grants invoke on the batch stage function and its versions/aliases (ARN:*); nothing else.',
    );
    this.schedule = new scheduler.Schedule(this, 'Schedule', {
      description: 'polyeval batch stage',
      schedule: scheduler.ScheduleExpression.rate(BATCH_RATE),
      target: new LambdaInvoke(this.handler.function, { role: schedulerRole, retryAttempts: 0 }),
    });
    new cloudwatch.Alarm(this, 'ErrorsAlarm', {
      alarmDescription: 'The batch stage failed (a run’s batch jobs are not moving)',
      metric: this.handler.function.metricErrors({ period: Duration.hours(1), statistic: 'Sum' }),
      threshold: 3,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }
}
