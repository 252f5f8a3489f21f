/**
 * The nightly sweep: an EventBridge Scheduler schedule invoking the nightly function with the
 * sweep (benchmarks × models × params) inline, or with the name of the SSM parameter holding it
 * (so the sweep changes without a deploy). The function starts one run per pair, as POST /runs.
 */
import { Duration, Stack, TimeZone } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { NightlySource, PolyevalConfig } from './config.ts';
import { LEDGER_CONTROL_ACTIONS, ledgerAccess } from './defaults/iam-statements.ts';
import { grantObjectAccess } from './grants.ts';
import { acknowledgeResources } from './nag.ts';
import { PolyevalFunction } from './node-function.ts';

/**
 * The event the nightly function receives: the sweep itself, or where to read it, and the
 * schedule's time (Scheduler fills the placeholder), from which the run ids derive, so a
 * retried invocation finds its runs started and starts nothing twice.
 */
export function nightlyInput(source: NightlySource): Record<string, unknown> {
  const scheduledTime = '<aws.scheduler.scheduled-time>';
  return source.kind === 'inline'
    ? { source: 'inline', sweep: source.sweep, scheduledTime }
    : { source: 'ssm', parameterName: source.parameterName, scheduledTime };
}

/** Properties of {@link NightlySchedule}. */
export interface NightlyScheduleProps {
  config: PolyevalConfig;
  bucket: s3.IBucket;
  ledger: dynamodb.ITable;
  planQueue: sqs.IQueue;
}

/** Nightly function + schedule + an alarm on its errors. */
export class NightlySchedule extends Construct {
  readonly handler: PolyevalFunction;
  readonly schedule: scheduler.Schedule;

  constructor(scope: Construct, id: string, props: NightlyScheduleProps) {
    super(scope, id);
    const { config, bucket, ledger } = props;
    const source = config.nightly;
    this.handler = new PolyevalFunction(this, 'Handler', {
      name: 'nightly',
      architecture: config.architecture,
      logRetentionDays: config.logRetentionDays,
      description: 'Starts the nightly sweep: one run per benchmark × model',
      timeout: Duration.minutes(2),
      memorySize: 512,
      environment: {
        BUCKET_NAME: bucket.bucketName,
        TABLE_NAME: ledger.tableName,
        PLAN_QUEUE_URL: props.planQueue.queueUrl,
        ...(source.kind === 'ssm' ? { NIGHTLY_PARAMETER_NAME: source.parameterName } : {}),
      },
    });
    grantObjectAccess(this.handler.role, bucket, { read: ['runs/*', 'datasets/*'], write: ['runs/*/manifest.json'], list: ['runs/', 'datasets/'] });
    this.handler.role.addToPrincipalPolicy(ledgerAccess(ledger, LEDGER_CONTROL_ACTIONS));
    props.planQueue.grantSendMessages(this.handler.role);
    if (source.kind === 'ssm') {
      const { partition, region, account } = Stack.of(this);
      this.handler.role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['ssm:GetParameter'],
          resources: [`arn:${partition}:ssm:${region}:${account}:parameter${source.parameterName}`],
        }),
      );
    }

    const schedulerRole = new iam.Role(this, 'SchedulerRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com'),
      description: 'EventBridge Scheduler: invoke the polyeval nightly function',
    });
    acknowledgeResources(
      schedulerRole,
      [`${this.handler.function.functionArn}:*`],
      'The Scheduler target grants invoke on the nightly function and its versions/aliases (ARN:*); nothing else.',
    );
    this.schedule = new scheduler.Schedule(this, 'Schedule', {
      description: 'polyeval nightly regression sweep',
      schedule: scheduler.ScheduleExpression.expression(config.nightlySchedule, TimeZone.of(config.nightlyTimezone)),
      target: new LambdaInvoke(this.handler.function, {
        role: schedulerRole,
        input: scheduler.ScheduleTargetInput.fromObject(nightlyInput(source)),
        retryAttempts: 2,
        maxEventAge: Duration.hours(2),
      }),
    });
    new cloudwatch.Alarm(this, 'ErrorsAlarm', {
      alarmDescription: 'The nightly sweep failed to start',
      metric: this.handler.function.metricErrors({ period: Duration.hours(1), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }
}
