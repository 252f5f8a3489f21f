/**
 * One SQS work queue with its dead-letter queue and two alarms: messages in the DLQ (a poison or
 * repeatedly failing item) and the age of the oldest message (a stalled consumer).
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { deadLetterQueueProps, workQueueProps } from './defaults/queue-defaults.ts';

/** Properties of {@link WorkQueue}. */
export interface WorkQueueProps {
  /** Visibility timeout: at least six times the consumer's timeout. */
  visibilityTimeout: Duration;
  /** Alarm when the oldest message is older than this (a consumer is stuck or capped too low). */
  maxAge: Duration;
  /** Receives before the DLQ (default MAX_RECEIVE_COUNT, 5). */
  maxReceiveCount?: number;
}

/** A queue + DLQ + alarms; `queue` is what producers send to and consumers read. */
export class WorkQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly dlqAlarm: cloudwatch.Alarm;
  readonly ageAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: WorkQueueProps) {
    super(scope, id);
    this.deadLetterQueue = new sqs.Queue(this, 'Dlq', deadLetterQueueProps());
    this.queue = new sqs.Queue(this, 'Queue', workQueueProps(this.deadLetterQueue, props.visibilityTimeout, props.maxReceiveCount));
    this.dlqAlarm = new cloudwatch.Alarm(this, 'DlqDepthAlarm', {
      alarmDescription: `Messages in the dead-letter queue of ${id}: inspect and redrive.`,
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.ageAlarm = new cloudwatch.Alarm(this, 'AgeAlarm', {
      alarmDescription: `Oldest message of ${id} is older than ${props.maxAge.toHumanString()}.`,
      metric: this.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: props.maxAge.toSeconds(),
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }
}
