/** Secure defaults for SQS queues and their dead-letter queues (cdk-nag SQS2, SQS3, SQS4). */
import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';

/**
 * Deliveries before a message moves to its DLQ. AWS advises at least 5 for a queue a Lambda
 * function consumes: the event source mapping's own throttling and scaling retries count as
 * receives, so fewer sends healthy messages to the DLQ under load.
 */
export const MAX_RECEIVE_COUNT = 5;

/** Lambda's guidance: a queue's visibility timeout is at least six times the consumer's timeout. */
export function visibilityTimeoutFor(consumerTimeout: Duration): Duration {
  return Duration.seconds(consumerTimeout.toSeconds() * 6);
}

/** A DLQ keeps messages for the longest period SQS allows, so nothing expires before triage. */
export function deadLetterQueueProps(): sqs.QueueProps {
  return {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  };
}

/** A work queue: SSE, TLS-only, redriving to `dlq` after `maxReceiveCount` receives ({@link MAX_RECEIVE_COUNT} by default). */
export function workQueueProps(dlq: sqs.IQueue, visibilityTimeout: Duration, maxReceiveCount = MAX_RECEIVE_COUNT): sqs.QueueProps {
  return {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    visibilityTimeout,
    retentionPeriod: Duration.days(4),
    deadLetterQueue: { queue: dlq, maxReceiveCount },
  };
}
