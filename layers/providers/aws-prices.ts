/**
 * AWS list prices in us-east-1, USD (November 2026 pages): the one place they are written.
 * The cloud estimate (layers/app/cloud/estimate.ts) and the cloud-scale simulation bill with
 * {@link AWS_PRICES}; the price table's `compute` block (prices.ts, overridable by a user's
 * `--prices` file) is {@link TABLE_COMPUTE_PRICES}, derived from it.
 */

/** Lambda: USD per million requests ("AWS Lambda pricing"). */
const LAMBDA_PER_MILLION_REQUESTS = 0.2;

/** AWS list prices, us-east-1, USD. */
export const AWS_PRICES = {
  lambdaGbSecond: { arm64: 0.0000133334, x86_64: 0.0000166667 },
  lambdaRequest: LAMBDA_PER_MILLION_REQUESTS / 1e6,
  fargateVcpuHour: { arm64: 0.03238, x86_64: 0.04048 },
  fargateGbHour: { arm64: 0.00356, x86_64: 0.004445 },
  sqsRequest: 0.4 / 1e6,
  // DynamoDB on-demand, per million write / read request units: halved from $1.25 / $0.25 on
  // 2024-11-01 (AWS's on-demand throughput price reduction; the DynamoDB pricing page, re-read for
  // issue 35 on 2026-12-06 through public summaries of it: airbyte.com and jusdb.com's DynamoDB pricing guides).
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
  /** An interface VPC endpoint, per AZ and hour (AWS PrivateLink pricing). */
  interfaceEndpointAzHour: 0.01,
} as const;

/** The price table's executor compute prices (x86_64 Fargate; Lambda on both architectures). */
export const TABLE_COMPUTE_PRICES = {
  lambda_gb_second: AWS_PRICES.lambdaGbSecond.x86_64,
  lambda_arm_gb_second: AWS_PRICES.lambdaGbSecond.arm64,
  lambda_per_million_requests: LAMBDA_PER_MILLION_REQUESTS,
  fargate_vcpu_hour: AWS_PRICES.fargateVcpuHour.x86_64,
  fargate_gb_hour: AWS_PRICES.fargateGbHour.x86_64,
} as const;
