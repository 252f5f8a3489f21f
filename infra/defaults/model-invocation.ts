/**
 * What the generate function may invoke: the IAM statements every provider of the registry
 * describes for itself (layers/providers/registry.ts; e.g. Bedrock models directly and through
 * inference profiles, SageMaker endpoints of this account). The model is chosen per run, so
 * resources are patterns; their cdk-nag acknowledgements derive from the same descriptions.
 */
import type { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { ArnPattern, IamGrant, ProviderKind } from '../../layers/core/models/index.ts';
import { PROVIDER_REGISTRY } from '../../layers/providers/index.ts';
import { resourceFinding } from '../nag.ts';

/** The region part of a pattern in the stack (undefined: the stack's own). */
function regionOf(pattern: ArnPattern): string | undefined {
  return pattern.region === 'stack' ? undefined : pattern.region === 'any' ? '*' : '';
}

/** The ARN of a pattern in this stack. */
function arnOf(stack: Stack, pattern: ArnPattern | '*'): string {
  if (pattern === '*') return '*';
  const region = regionOf(pattern) ?? stack.region;
  return `arn:${stack.partition}:${pattern.service}:${region}:${pattern.account ? stack.account : ''}:${pattern.resource}`;
}

type Kinds = readonly Pick<ProviderKind, 'scheme' | 'usage' | 'iam' | 'iamReason'>[];

/** Every provider's grants, in registry order. */
function grants(kinds: Kinds): IamGrant[] {
  return kinds.flatMap((k) => [...k.iam]);
}

/** The IAM statements of model invocation for the generate role. */
export function modelInvocationStatements(stack: Stack, kinds: Kinds = PROVIDER_REGISTRY.kinds): iam.PolicyStatement[] {
  return grants(kinds).map(
    (g) =>
      new iam.PolicyStatement({
        sid: g.sid,
        actions: [...g.actions],
        resources: g.resources.map((r) => arnOf(stack, r)),
        ...(g.arnLike ? { conditions: { ArnLike: { [g.arnLike.key]: g.arnLike.arns.map((r) => arnOf(stack, r)) } } } : {}),
      }),
  );
}

/** The cdk-nag IAM5 finding ids of {@link modelInvocationStatements}: each distinct resource pattern once. */
export function modelInvocationFindings(stack: Stack, kinds: Kinds = PROVIDER_REGISTRY.kinds): string[] {
  return [...new Set(grants(kinds).flatMap((g) => g.resources.map((r) => resourceFinding(stack, arnOf(stack, r)))))];
}

/** Why the resources are patterns (the acknowledgement's reason), from the providers' own words. */
export function modelInvocationReason(all: Kinds = PROVIDER_REGISTRY.kinds): string {
  const kinds = all.filter((k) => k.iam.length > 0);
  const usages = kinds.map((k) => k.usage).join(', ');
  return `The model is chosen per run (${usages}): ${kinds.map((k) => `${k.scheme}: ${k.iamReason ?? 'see the provider'}`).join('; ')}.`;
}
