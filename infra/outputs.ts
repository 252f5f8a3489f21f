/**
 * What a deployment tells its user (CloudFormation outputs, also written by
 * `cdk deploy --outputs-file`) and how its bill is split (cost-allocation tags on every
 * taggable resource; activate the tag keys once in the Billing console).
 */
import { Aspects, CfnOutput, Stack, Tags, type IAspect } from 'aws-cdk-lib';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { IConstruct } from 'constructs';
import type { Analytics } from './analytics.ts';

/** Output keys, as `describe-stacks` and the outputs file show them. */
export const OUTPUT_KEYS = {
  apiUrl: 'ApiUrl',
  bucket: 'ResultsBucketName',
  table: 'LedgerTableName',
  alarmTopic: 'AlarmTopicArn',
  database: 'GlueDatabaseName',
  workGroup: 'AthenaWorkGroupName',
} as const;

/** The cost-allocation tag keys and the values every resource of the stack carries. */
export function costAllocationTags(stack: Stack): Record<string, string> {
  return { project: 'polyeval', 'polyeval:stack': stack.stackName };
}

/** Resources the outputs name. */
export interface StackOutputsProps {
  api: apigwv2.HttpApi;
  bucket: s3.IBucket;
  ledger: dynamodb.ITable;
  analytics: Analytics;
  alarmTopic: sns.ITopic;
}

/** Adds the stack's outputs: API URL (for `POLYEVAL_API`), bucket, table, topic, Athena names. */
export function addStackOutputs(stack: Stack, props: StackOutputsProps): void {
  const outputs: [keyof typeof OUTPUT_KEYS, string, string][] = [
    ['apiUrl', props.api.apiEndpoint, 'HTTP API endpoint: export POLYEVAL_API=<this>'],
    ['bucket', props.bucket.bucketName, 'Results bucket (records, metrics, reports); retained on destroy'],
    ['table', props.ledger.tableName, 'DynamoDB run ledger; retained on destroy'],
    ['alarmTopic', props.alarmTopic.topicArn, 'SNS topic every alarm notifies; subscribe to it or deploy with -c alarmEmail=...'],
    ['database', props.analytics.databaseName, 'Glue database of the records and metrics tables'],
    ['workGroup', props.analytics.workGroupName, 'Athena workgroup to query them in'],
  ];
  for (const [key, value, description] of outputs) new CfnOutput(stack, OUTPUT_KEYS[key], { value, description });
}

/**
 * Resource types left untagged: CDK tags scalable targets, but CloudFormation's published
 * schema (as cfn-lint validates it) does not list `Tags` on them, and they are never billed.
 */
const UNTAGGED_TYPES = ['AWS::ApplicationAutoScaling::ScalableTarget'];

/**
 * Fargate bills per task, and a task carries only the tags it is started with: services that
 * do not say otherwise pass theirs on (`PropagateTags: SERVICE`).
 */
class PropagateServiceTags implements IAspect {
  visit(node: IConstruct): void {
    if (node instanceof ecs.CfnService && node.propagateTags === undefined) node.propagateTags = 'SERVICE';
  }
}

/** Tags every taggable resource of `stack` (and every ECS task it starts) with {@link costAllocationTags}. */
export function tagForCostAllocation(stack: Stack): void {
  for (const [key, value] of Object.entries(costAllocationTags(stack))) Tags.of(stack).add(key, value, { excludeResourceTypes: UNTAGGED_TYPES });
  Aspects.of(stack).add(new PropagateServiceTags());
}
