/**
 * Putting a received message back for later: `ChangeMessageVisibility` on its receipt handle
 * (SQS API reference, ChangeMessageVisibility: the new timeout counts from the call, 0 to 43,200
 * seconds). A Lambda function that then reports the message as a batch item failure leaves it
 * in the queue, invisible for that long — the back-off of a throttled item. The function's role
 * holds `sqs:ChangeMessageVisibility` through its event source mapping's consume grant.
 */
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';

/** The queue URL of an SQS queue ARN (`arn:aws:sqs:<region>:<account>:<name>`), as SQS spells it. */
export function queueUrlOfArn(arn: string): string {
  const [, partition, service, region, account, name] = arn.split(':');
  if (service !== 'sqs' || !region || !account || !name) throw new Error(`not an SQS queue ARN: ${arn}`);
  const domain = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sqs.${region}.${domain}/${account}/${name}`;
}

/** Makes `record`'s message invisible for `seconds` from now (at most 12 hours). */
export async function returnLater(client: SQSClient, record: SQSRecord, seconds: number, queueUrl = queueUrlOfArn(record.eventSourceARN)): Promise<void> {
  await client.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl,
      ReceiptHandle: record.receiptHandle,
      VisibilityTimeout: Math.min(43_200, Math.max(0, Math.round(seconds))),
    }),
  );
}
