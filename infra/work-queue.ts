/**
 * One SQS work queue with its dead-letter queue. Its two alarms — messages in the DLQ (a poison or
 * repeatedly failing item) and an old message (a stalled consumer) — are kept by the run watchdog
 * (infra/watchdog.ts, layers/app/cloud/queue-alarms.ts), not by CloudWatch alarms, which bill
 * $0.10 per metric and month whether anything runs or not (docs/aws.md "Alarms").
 */
import type { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { deadLetterQueueProps, workQueueProps } from './defaults/queue-defaults.ts';

/** Properties of {@link WorkQueue}. */
export interface WorkQueueProps {
  /** Visibility timeout: at least six times the consumer's timeout. */
  visibilityTimeout: Duration;
  /** Alarm when its oldest message is older than this for 15 minutes (a consumer is stuck or capped too low). */
  maxAge: Duration;
  /** Receives before the DLQ (default MAX_RECEIVE_COUNT, 5). */
  maxReceiveCount?: number;
}

/**
 * A queue and its DLQ as the watchdog and the api's redrive see them: every {@link WorkQueue}, and a
 * runner's answers queue (runners.ts), which has no age alarm of its own (`maxAge` absent): its
 * consumer is the judge, whose execute queue's age alarm already tells a stuck judge, and an age
 * metric would bill each tick (layers/app/cloud/idle-cost.ts).
 */
export interface QueuePair {
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly maxAge?: Duration;
}

/** A queue + DLQ; `queue` is what producers send to and consumers read. */
export class WorkQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  /** The watchdog's age threshold for this queue. */
  readonly maxAge: Duration;

  constructor(scope: Construct, id: string, props: WorkQueueProps) {
    super(scope, id);
    this.maxAge = props.maxAge;
    this.deadLetterQueue = new sqs.Queue(this, 'Dlq', deadLetterQueueProps());
    this.queue = new sqs.Queue(this, 'Queue', workQueueProps(this.deadLetterQueue, props.visibilityTimeout, props.maxReceiveCount));
  }
}
