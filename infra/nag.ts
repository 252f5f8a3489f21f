/**
 * cdk-nag acknowledgements. cdk-nag 3 reads CDK's native `Validations.of(x).acknowledge()`
 * metadata; a finding is acknowledged on one construct (and its children) with one reason, and
 * a rule reporting several findings (IAM5) needs one acknowledgement per finding.
 *
 * An IAM5 finding names the policy's resource as cdk-nag prints it, so every id here is derived
 * from the very value the policy holds ({@link resourceFinding}), never spelled by hand: a hand
 * spelling such as `arn:<AWS::Partition>:bedrock:<AWS::Region>::…` matches only while the
 * Region is a token, and `cdk synth` always knows it (the CLI sets `CDK_DEFAULT_REGION`,
 * us-east-1 when nothing else says), so the finding read `…bedrock:us-east-1::…` and failed
 * the synth.
 */
import { Stack, Token, Validations } from 'aws-cdk-lib';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';

/** Acknowledges `ruleId` (e.g. `AwsSolutions-S1` or `AwsSolutions-IAM5[Resource::*]`) on `scope`. */
export function acknowledge(scope: IConstruct, ruleId: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: ruleId, reason });
}

/**
 * A resolved CloudFormation value flattened as cdk-nag 3.0.2 flattens a policy resource
 * (cdk-nag `src/utils/flatten-cfn-reference.ts` `flattenCfnReference`): `Fn::Join` joined by its
 * delimiter, `Ref` as `<Name>`, `Fn::GetAtt` as `<Name.Attribute>`, `Fn::Sub`'s `${x}` as `<x>`,
 * `Fn::ImportValue` as its operand, anything else as its JSON.
 */
function flatten(node: unknown): string {
  if (node === undefined) return '';
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
  const value = node as Record<string, unknown>;
  if (value['Fn::Join']) {
    const [delimiter, items] = value['Fn::Join'] as [string, unknown[]];
    return items.map(flatten).join(delimiter);
  }
  if (value['Fn::Sub']) return flatten(value['Fn::Sub']);
  if (value['Fn::GetAtt']) {
    const [resource, attribute] = value['Fn::GetAtt'] as [unknown, unknown];
    return `<${flatten(resource)}.${flatten(attribute)}>`;
  }
  if (value['Fn::ImportValue']) return flatten(value['Fn::ImportValue']);
  if (value['Ref']) return `<${flatten(value['Ref'])}>`;
  return JSON.stringify(node);
}

/** The IAM5 finding id cdk-nag reports for `resource` (a policy resource, tokens and all) in `stack`. */
export function resourceFinding(stack: Stack, resource: string): string {
  const text = Token.isUnresolved(resource) ? flatten(stack.resolve(resource)) : resource;
  return `AwsSolutions-IAM5[Resource::${text}]`;
}

/** Acknowledges the IAM5 finding of each wildcard resource of `resources` on `scope`, with one reason. */
export function acknowledgeResources(scope: IConstruct, resources: readonly string[], reason: string): void {
  const stack = Stack.of(scope);
  for (const id of new Set(resources.map((resource) => resourceFinding(stack, resource)))) {
    if (id.includes('*')) acknowledge(scope, id, reason);
  }
}

/** The IAM5 finding ids cdk-nag reports for `bucket.arnForObjects(pattern)` resources. */
export function objectResourceFindings(bucket: s3.IBucket, patterns: readonly string[]): string[] {
  return patterns.map((pattern) => resourceFinding(Stack.of(bucket), bucket.arnForObjects(pattern)));
}

/** Acknowledges each IAM5 finding for object access under the given key patterns. */
export function acknowledgeObjectPatterns(scope: IConstruct, bucket: s3.IBucket, patterns: readonly string[], reason: string): void {
  for (const id of objectResourceFindings(bucket, patterns)) acknowledge(scope, id, reason);
}
