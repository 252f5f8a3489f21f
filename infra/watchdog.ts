/**
 * The run watchdog: a function on an EventBridge Scheduler rate that closes runs which stopped
 * moving while every stage and execute queue is empty (functions/watchdog), and keeps the work
 * queues' alarms (DLQ depth, message age: layers/app/cloud/queue-alarms.ts), telling each
 * transition to the alarm topic through an EventBridge rule. Two CloudWatch alarms watch the
 * watchdog itself: its errors, and ticks that did not happen (missing data breaches). It reads
 * queue depths and the queues' age metric, the runners' AsyncEventsReceived metric (a stalled run
 * waits while a runner may still hold an asynchronous event: layers/app/cloud/runner-events.ts),
 * the ledger, sends to the aggregate queue and puts events on the bus; nothing else.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { QUEUE_ALARM_DETAIL_TYPE } from '../layers/app/cloud/queue-alarms.ts';
import { EVENT_SOURCE } from '../layers/aws/index.ts';
import type { PolyevalConfig } from './config.ts';
import { LEDGER_CONTROL_ACTIONS, ledgerAccess } from './defaults/iam-statements.ts';
import { acknowledgeResources } from './nag.ts';
import { PolyevalFunction } from './node-function.ts';
import type { QueuePair } from './work-queue.ts';

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
  /**
   * The work queues by name, whose alarms the watchdog keeps (with `alarmBus`); given, they are the
   * watched queues and DLQs (`watchedQueues`, `deadLetterQueues` are then ignored).
   */
  alarmQueues?: ReadonlyMap<string, QueuePair>;
  /** The bus the watchdog puts queue alarm transitions on; {@link RunWatchdog.alarmTo} routes them to a topic. */
  alarmBus?: events.IEventBus;
  /**
   * The functions the judges invoke asynchronously (the runners), with their maximum event age and
   * timeout: while one may still hold an event, stalled runs wait (layers/app/cloud/runner-events.ts).
   */
  runners?: { functions: readonly lambda.IFunction[]; maxEventAge: Duration; timeout: Duration };
}

export class RunWatchdog extends Construct {
  readonly handler: PolyevalFunction;
  readonly schedule: scheduler.Schedule;
  readonly #alarmBus: events.IEventBus | undefined;

  constructor(scope: Construct, id: string, props: RunWatchdogProps) {
    super(scope, id);
    const { config, ledger } = props;
    const alarmQueues = props.alarmBus ? props.alarmQueues : undefined;
    const watchedQueues = alarmQueues ? [...alarmQueues.values()].map((q) => q.queue) : props.watchedQueues;
    const dlqs = alarmQueues ? [...alarmQueues.values()].map((q) => q.deadLetterQueue) : (props.deadLetterQueues ?? []);
    this.#alarmBus = props.alarmBus;
    this.handler = new PolyevalFunction(this, 'Handler', {
      name: 'watchdog',
      architecture: config.architecture,
      logRetentionDays: config.logRetentionDays,
      description: 'Closes stalled runs as completed_with_missing (missing items listed)',
      // Up to 3 minutes of it waiting for CloudWatch before a close (functions/watchdog/deps.ts RUNNER_METRIC_SETTLE_MS).
      timeout: Duration.minutes(5),
      memorySize: 512,
      environment: {
        TABLE_NAME: ledger.tableName,
        AGGREGATE_QUEUE_URL: props.aggregateQueue.queueUrl,
        WATCHED_QUEUE_URLS: watchedQueues.map((q) => q.queueUrl).join(','),
        DEAD_LETTER_QUEUE_URLS: dlqs.map((q) => q.queueUrl).join(','),
        STALL_MINUTES: String(WATCHDOG_STALL.toMinutes()),
        ...(props.runners && props.runners.functions.length > 0
          ? {
              RUNNER_FUNCTION_NAMES: props.runners.functions.map((fn) => fn.functionName).join(','),
              RUNNER_MAX_EVENT_AGE_SECONDS: String(props.runners.maxEventAge.toSeconds()),
              RUNNER_TIMEOUT_SECONDS: String(props.runners.timeout.toSeconds()),
            }
          : {}),
        // name=maxAgeSeconds (name=-: no age alarm), in the order of the URLs above (layers/aws/queue-alarm-store.ts).
        ...(alarmQueues && props.alarmBus
          ? {
              QUEUE_ALARMS: [...alarmQueues].map(([name, q]) => `${name}=${q.maxAge?.toSeconds() ?? '-'}`).join(','),
              ALARM_BUS_NAME: props.alarmBus.eventBusName,
            }
          : {}),
      },
    });
    this.handler.role.addToPrincipalPolicy(ledgerAccess(ledger, LEDGER_CONTROL_ACTIONS));
    props.aggregateQueue.grantSendMessages(this.handler.role);
    this.handler.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['sqs:GetQueueAttributes'], resources: [...watchedQueues, ...dlqs].map((q) => q.queueArn) }),
    );
    props.alarmBus?.grantPutEventsTo(this.handler.role);
    const readsRunners = props.runners !== undefined && props.runners.functions.length > 0;
    if ((alarmQueues && props.alarmBus) || readsRunners) {
      // The age alarm reads each work queue's ApproximateAgeOfOldestMessage (queue-alarm-store.ts), the
      // stall check the runners' AsyncEventsReceived (lambda-async-events.ts); GetMetricData takes no
      // resource-level scope (it reads metrics, not a resource of this stack).
      this.handler.role.addToPrincipalPolicy(new iam.PolicyStatement({ sid: 'ReadQueueAges', actions: ['cloudwatch:GetMetricData'], resources: ['*'] }));
      acknowledgeResources(
        this.handler.role,
        ['*'],
        "cloudwatch:GetMetricData takes no resource-level scope; the watchdog reads the work queues' ApproximateAgeOfOldestMessage and the runners' AsyncEventsReceived with it.",
      );
    }
    // Reading a DLQ hides its messages briefly; the watchdog makes them visible again at once.
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
    // What the watchdog cannot tell of itself: that it stopped running (schedule deleted or
    // disabled, function throttled). Four ticks an hour; none for an hour is ALARM.
    new cloudwatch.Alarm(this, 'MissingAlarm', {
      alarmDescription: 'The run watchdog did not run for an hour: queue alarms (DLQ depth, message age) and stalled runs are not watched',
      metric: this.handler.function.metricInvocations({ period: Duration.hours(1), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    });
  }

  /** Routes the watchdog's queue alarm transitions to `topic` (each one's text as the message). */
  alarmTo(topic: sns.ITopic): events.Rule | undefined {
    if (this.#alarmBus === undefined) return undefined;
    return new events.Rule(this, 'QueueAlarmRule', {
      description: 'polyeval queue alarms kept by the run watchdog → the alarm topic',
      eventBus: this.#alarmBus,
      eventPattern: { source: [EVENT_SOURCE], detailType: [QUEUE_ALARM_DETAIL_TYPE] },
      targets: [new targets.SnsTopic(topic, { message: events.RuleTargetInput.fromText(events.EventField.fromPath('$.detail.message')) })],
    });
  }
}
