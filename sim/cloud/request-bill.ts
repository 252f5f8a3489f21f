/**
 * Issue 35: a simulated run's billed requests, per item and priced (`--detail`'s `requests`):
 * Lambda invocations, SQS calls, DynamoDB request units and S3 PUT/GET/LIST, at
 * layers/providers/aws-prices.ts's list prices (us-east-1; the AWS pricing pages for Lambda, SQS,
 * DynamoDB on-demand and S3 Standard, read 2026-12-06: $0.20 per million Lambda requests, $0.40 per
 * million SQS requests, $0.625/$0.125 per million write/read request units (since 2024-11-01), $0.005 per 1,000 PUT,
 * COPY, POST or LIST and $0.0004 per 1,000 GET). Each 64 KB of an SQS payload is billed as one
 * request; the pipeline's messages stay below it (large ones go to S3: large-messages.ts).
 */
import { AWS_PRICES } from '#app/cloud/estimate.ts';

export interface RequestCounts {
  lambdaInvocations: number;
  sqs: { send: number; receive: number; delete: number; changeVisibility: number };
  dynamo: { writeUnits: number; readUnits: number };
  s3: { put: number; get: number; list: number };
}

export interface RequestLine {
  count: number;
  per_item: number;
  usd: number;
}

export interface RequestBill {
  lambda: RequestLine;
  sqs: RequestLine;
  dynamo_write: RequestLine;
  dynamo_read: RequestLine;
  s3_put: RequestLine;
  s3_get: RequestLine;
  total_usd: number;
}

/** The bill of `counts` for a run of `items` items. */
export function requestBill(counts: RequestCounts, items: number): RequestBill {
  const line = (count: number, price: number): RequestLine => ({
    count,
    per_item: Number((count / Math.max(1, items)).toFixed(2)),
    usd: Number((count * price).toFixed(4)),
  });
  const sqs = counts.sqs.send + counts.sqs.receive + counts.sqs.delete + counts.sqs.changeVisibility;
  const bill = {
    lambda: line(counts.lambdaInvocations, AWS_PRICES.lambdaRequest),
    sqs: line(sqs, AWS_PRICES.sqsRequest),
    dynamo_write: line(counts.dynamo.writeUnits, AWS_PRICES.dynamoWriteUnit),
    dynamo_read: line(counts.dynamo.readUnits, AWS_PRICES.dynamoReadUnit),
    // LIST is priced as PUT is.
    s3_put: line(counts.s3.put + counts.s3.list, AWS_PRICES.s3Put),
    s3_get: line(counts.s3.get, AWS_PRICES.s3Get),
  };
  const total =
    counts.lambdaInvocations * AWS_PRICES.lambdaRequest +
    sqs * AWS_PRICES.sqsRequest +
    counts.dynamo.writeUnits * AWS_PRICES.dynamoWriteUnit +
    counts.dynamo.readUnits * AWS_PRICES.dynamoReadUnit +
    (counts.s3.put + counts.s3.list) * AWS_PRICES.s3Put +
    counts.s3.get * AWS_PRICES.s3Get;
  return { ...bill, total_usd: total };
}
