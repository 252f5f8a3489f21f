/**
 * The run watchdog: a function on an EventBridge Scheduler rate that closes runs which stopped
 * moving while every stage and execute queue is empty (functions/watchdog), and an alarm on its
 * errors. It reads queue depths, the ledger, and sends to the aggregate queue; nothing else.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { PolyevalConfig } from './config.ts';
import { LEDGER_CONTROL_ACTIONS, ledgerAccess } from './defaults/iam-statements.ts';
import { acknowledgeResources } from './nag.ts';
import { PolyevalFunction } from './node-function.ts';

/** How often the watchdog looks, and how long a run may go without progress before it is closed. */
export const WATCHDOG_RATE = Duration.minutes(15);
export const WATCHDOG_STALL = Duration.minutes(30);

/** Properties of {@link RunWatchdog}. */
export interface RunWatchdogProps {
  config: PolyevalConfig;
  ledger: dynamodb.ITable;
  aggregateQueue: sqs.IQueue;
  /** Every stage and execute queue (not the DLQs): the pipeline is idle when all are empty. */
  watchedQueues: readonly sqs.IQueue[];
  /** Their DLQs: read (never changed) to tell dead-lettered items from lost ones. */
  deadLetterQueues?: readonly sqs.IQueue[];
}

export class RunWatchdog extends Construct {
  readonly handler: PolyevalFunction;
  readonly schedule: scheduler.Schedule;

  constructor(scope: Construct, id: string, props: RunWatchdogProps) {
    super(scope, id);
    const { config, ledger } = props;
    this.handler = new PolyevalFunction(this, 'Handler', {
      name: 'watchdog',
      architecture: config.architecture,
      logRetentionDays: config.logRetentionDays,
      description: 'Closes stalled runs as completed_with_missing (missing items listed)',
      timeout: Duration.minutes(2),
      memorySize: 512,
      environment: {
        TABLE_NAME: ledger.tableName,
        AGGREGATE_QUEUE_URL: props.aggregateQueue.queueUrl,
        WATCHED_QUEUE_URLS: props.watchedQueues.map((q) => q.queueUrl).join(','),
        DEAD_LETTER_QUEUE_URLS: (props.deadLetterQueues ?? []).map((q) => q.queueUrl).join(','),
        STALL_MINUTES: String(WATCHDOG_STALL.toMinutes()),
      },
    });
    this.handler.role.addToPrincipalPolicy(ledgerAccess(ledger, LEDGER_CONTROL_ACTIONS));
    props.aggregateQueue.grantSendMessages(this.handler.role);
    this.handler.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['sqs:GetQueueAttributes'], resources: props.watchedQueues.map((q) => q.queueArn) }),
    );
    // Reading a DLQ hides its messages briefly; the watchdog makes them visible again at once.
    const dlqs = props.deadLetterQueues ?? [];
    if (dlqs.length > 0)
      this.handler.role.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility'], resources: dlqs.map((q) => q.queueArn) }),
      );

    const schedulerRole = new iam.Role(this, 'SchedulerRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com'),
      description: 'EventBridge Scheduler: invoke the polyeval run watchdog',
    });
    acknowledgeResources(
      schedulerRole,
      [`${this.handler.function.functionArn}:*`],
      'The Scheduler target grants invoke on the watchdog function and its versions/aliases (ARN:*); nothing else.',
    );
    this.schedule = new scheduler.Schedule(this, 'Schedule', {
      description: 'polyeval run watchdog',
      schedule: scheduler.ScheduleExpression.rate(WATCHDOG_RATE),
      target: new LambdaInvoke(this.handler.function, { role: schedulerRole, retryAttempts: 0 }),
    });
    new cloudwatch.Alarm(this, 'ErrorsAlarm', {
      alarmDescription: 'The run watchdog failed',
      metric: this.handler.function.metricErrors({ period: Duration.hours(1), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }
}
