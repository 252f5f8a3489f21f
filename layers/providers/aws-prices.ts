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
  // DynamoDB on-demand (standard table class), per million write / read request units: $0.625 /
  // $0.125, halved from $1.25 / $0.25 effective 2024-11-01. Primary sources: AWS's announcement,
  // "New – Amazon DynamoDB lowers pricing for on-demand throughput and global tables" (AWS Database
  // Blog, November 2024, aws.amazon.com/blogs/database/new-amazon-dynamodb-lowers-pricing-for-on-demand-throughput-and-global-tables/;
  // What's New 2024/11 "Amazon DynamoDB reduces prices for on-demand throughput and global tables"),
  // and the AWS Price List API (pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonDynamoDB/current/region_index.json),
  // whose us-east-1 usage types WriteRequestUnits = 0.0000006250 and ReadRequestUnits = 0.0000001250 USD
  // are the figures AWS's own awslabs/amazon-dynamodb-tools reads (tools/bulk_executor/tests/server/test_pricing.py,
  // commit b3ef85a, 2026-08-13). Read 2026-12-06; the pricing page (aws.amazon.com/dynamodb/pricing/on-demand/)
  // renders its table in the browser, so its figures were not read from it. Transactional writes bill
  // two units each (so $1.25 per million transactional writes), which the simulation's unit counts include.
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
