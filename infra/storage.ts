/** The results bucket (DESIGN §5 layout), its access-log bucket, and the DynamoDB run ledger. */
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { accessLogBucketProps, resultsBucketProps, resultsLifecycleRules } from './defaults/bucket-defaults.ts';
import { ledgerTableProps } from './defaults/table-defaults.ts';
import { acknowledge } from './nag.ts';

/** Bucket + ledger; every other construct receives them, none creates storage. */
export class Storage extends Construct {
  readonly bucket: s3.Bucket;
  readonly accessLogs: s3.Bucket;
  readonly ledger: dynamodb.Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.accessLogs = new s3.Bucket(this, 'AccessLogs', accessLogBucketProps());
    acknowledge(this.accessLogs, 'AwsSolutions-S1', 'This is the server access log bucket of the results bucket; logging it into itself would loop.');
    this.bucket = new s3.Bucket(this, 'Results', resultsBucketProps(this.accessLogs));
    // CloudFormation types ObjectSizeGreaterThan as a string (a Long); the L2 writes a number,
    // which every `cdk synth` would warn about (W9003). Write it as the schema has it.
    resultsLifecycleRules().forEach((rule, index) => {
      if (rule.objectSizeGreaterThan === undefined) return;
      (this.bucket.node.defaultChild as s3.CfnBucket).addPropertyOverride(
        `LifecycleConfiguration.Rules.${index}.ObjectSizeGreaterThan`,
        String(rule.objectSizeGreaterThan),
      );
    });
    this.ledger = new dynamodb.Table(this, 'Ledger', ledgerTableProps());
  }
}
