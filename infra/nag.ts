/**
 * cdk-nag acknowledgements. cdk-nag 3 reads CDK's native `Validations.of(x).acknowledge()`
 * metadata; a finding is acknowledged on one construct (and its children) with one reason, and
 * a rule reporting several findings (IAM5) needs one acknowledgement per finding.
 */
import { Stack, Token, Validations } from 'aws-cdk-lib';
import type { CfnElement } from 'aws-cdk-lib';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';

/** Acknowledges `ruleId` (e.g. `AwsSolutions-S1` or `AwsSolutions-IAM5[Resource::*]`) on `scope`. */
export function acknowledge(scope: IConstruct, ruleId: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: ruleId, reason });
}

/** How cdk-nag prints `GetAtt <construct>.Arn` inside a finding id: `<LogicalId.Arn>`. */
export function arnReference(construct: IConstruct): string {
  const resource = construct.node.defaultChild as CfnElement | undefined;
  if (!resource) throw new Error(`${construct.node.path} has no CloudFormation resource to name in a finding`);
  return `<${Stack.of(construct).resolve(resource.logicalId) as string}.Arn>`;
}

/**
 * How cdk-nag prints an ARN built from the stack's partition, region and account; `region`
 * replaces the stack's Region (`*` for every Region, `''` for a Region-less ARN).
 */
export function stackArn(stack: Stack, service: string, resource: string, withAccount = true, region?: string): string {
  const where = region ?? (Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region);
  const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
  return `arn:<AWS::Partition>:${service}:${where}:${withAccount ? account : ''}:${resource}`;
}

/** The IAM5 finding ids cdk-nag reports for `bucket.arnForObjects(pattern)` resources. */
export function objectResourceFindings(bucket: s3.IBucket, patterns: readonly string[]): string[] {
  return patterns.map((pattern) => `AwsSolutions-IAM5[Resource::${arnReference(bucket)}/${pattern}]`);
}

/** Acknowledges each IAM5 finding for object access under the given key patterns. */
export function acknowledgeObjectPatterns(scope: IConstruct, bucket: s3.IBucket, patterns: readonly string[], reason: string): void {
  for (const id of objectResourceFindings(bucket, patterns)) acknowledge(scope, id, reason);
}
