/**
 * Least-privilege IAM statements with exact actions (never `service:*` or `Get*`), scoped to
 * bucket prefixes and the ledger table. The CDK `grant*` helpers emit wildcard actions such as
 * `s3:GetObject*`; executors must not hold those, so every role here is built from these.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as s3 from 'aws-cdk-lib/aws-s3';

/** Object ARNs of `bucket` under each key pattern (e.g. `runs/*\/items/*`). */
export function objectArns(bucket: s3.IBucket, patterns: readonly string[]): string[] {
  return patterns.map((pattern) => bucket.arnForObjects(pattern));
}

/** `s3:GetObject` on the given key patterns. */
export function readObjects(bucket: s3.IBucket, patterns: readonly string[]): iam.PolicyStatement {
  return new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: objectArns(bucket, patterns) });
}

/** `s3:PutObject` on the given key patterns. */
export function writeObjects(bucket: s3.IBucket, patterns: readonly string[]): iam.PolicyStatement {
  return new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: objectArns(bucket, patterns) });
}

/**
 * `s3:ListBucket` on the bucket, with no condition. S3 answers a GetObject/HeadObject of a
 * missing key with 404 NoSuchKey only to a caller holding `s3:ListBucket` on the bucket, and
 * with 403 AccessDenied otherwise (GetObject API reference, "Permissions"). A GetObject
 * request carries no `s3:prefix`, so a statement conditioned on `s3:prefix` never applies to
 * it: every "already recorded?" read would be denied instead of missing. The grant reveals key
 * names only, never contents, which the object statements keep scoped.
 */
export function listBucket(bucket: s3.IBucket): iam.PolicyStatement {
  return new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] });
}

/**
 * Item-level ledger actions an executor needs: read a run (its run, cost and shard count rows
 * in one BatchGetItem, dynamo-run-ledger.ts getRun), count a record conditionally.
 */
export const LEDGER_WRITER_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:ConditionCheckItem',
] as const;
/** Ledger actions of the control plane (api, plan, aggregate, nightly): adds queries. */
export const LEDGER_CONTROL_ACTIONS = [...LEDGER_WRITER_ACTIONS, 'dynamodb:Query', 'dynamodb:BatchWriteItem'] as const;

/** The given item-level actions on the ledger table only (no indexes, no streams). */
export function ledgerAccess(table: dynamodb.ITable, actions: readonly string[]): iam.PolicyStatement {
  return new iam.PolicyStatement({ actions: [...actions], resources: [table.tableArn] });
}

/** Key patterns an executor reads (task inputs, run manifests and items) and writes (its records, and the toolchains it judged with: layers/app/cloud/toolchain-record.ts). */
export const EXECUTOR_READ_PATTERNS = ['datasets/*', 'runs/*'] as const;
export const EXECUTOR_WRITE_PATTERNS = ['runs/*/items/*', 'runs/*/toolchains/*'] as const;

/**
 * What Lambda needs to attach a function to a VPC (the managed AWSLambdaVPCAccessExecutionRole
 * without its log actions). EC2 network-interface actions take no resource-level scope here.
 */
export function vpcAttachmentStatement(): iam.PolicyStatement {
  return new iam.PolicyStatement({
    actions: [
      'ec2:CreateNetworkInterface',
      'ec2:DescribeNetworkInterfaces',
      'ec2:DescribeSubnets',
      'ec2:DeleteNetworkInterface',
      'ec2:AssignPrivateIpAddresses',
      'ec2:UnassignPrivateIpAddresses',
    ],
    resources: ['*'],
  });
}
