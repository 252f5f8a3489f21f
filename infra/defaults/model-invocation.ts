/**
 * What the generate function may invoke: Bedrock models (directly, through cross-Region
 * inference profiles, through application inference profiles) and SageMaker endpoints of this
 * account. The model is chosen per run (`bedrock:<id>`), so resources are patterns.
 *
 * Bedrock's rules (user guide, "Prerequisites for inference profiles" and "Geographic/Global
 * cross-Region inference"): invoking a cross-Region profile (`us.`, `eu.`, `apac.`, `global.`…)
 * needs InvokeModel on the profile in the source Region AND on the foundation model in every
 * Region the profile may route to — a `global.` profile also on the Region-less
 * `arn:…:bedrock:::foundation-model/<id>`. Application inference profiles are their own
 * resource type. Converse/ConverseStream are authorised as InvokeModel(WithResponseStream).
 *
 * Foundation models outside this Region are granted only when the call goes through one of
 * this account's profiles in this Region (`bedrock:InferenceProfileArn`), so the role cannot
 * call a model directly in another Region.
 */
import type { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { stackArn } from '../nag.ts';

const INVOKE = ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'];

/** Profile ARNs of this account in the stack's Region: system (cross-Region) and application. */
function profileArns(stack: Stack, region: string): string[] {
  const { partition, account } = stack;
  return [`arn:${partition}:bedrock:${region}:${account}:inference-profile/*`, `arn:${partition}:bedrock:${region}:${account}:application-inference-profile/*`];
}

/** The IAM statements of model invocation for the generate role. */
export function modelInvocationStatements(stack: Stack): iam.PolicyStatement[] {
  const { partition, region, account } = stack;
  return [
    // In this Region: on-demand models and the profiles themselves.
    new iam.PolicyStatement({
      sid: 'InvokeModelsAndProfilesInRegion',
      actions: INVOKE,
      resources: [`arn:${partition}:bedrock:${region}::foundation-model/*`, ...profileArns(stack, region)],
    }),
    // Where a profile routes: the model in every Region (and the global, Region-less model
    // ARN), and the system profile's copies there, only through one of our profiles.
    new iam.PolicyStatement({
      sid: 'InvokeModelsWhereProfilesRoute',
      actions: INVOKE,
      resources: [
        `arn:${partition}:bedrock:*::foundation-model/*`,
        `arn:${partition}:bedrock:::foundation-model/*`,
        `arn:${partition}:bedrock:*:${account}:inference-profile/*`,
      ],
      conditions: { ArnLike: { 'bedrock:InferenceProfileArn': profileArns(stack, region) } },
    }),
    new iam.PolicyStatement({
      sid: 'InvokeSageMakerEndpoints',
      actions: ['sagemaker:InvokeEndpoint'],
      resources: [`arn:${partition}:sagemaker:${region}:${account}:endpoint/*`],
    }),
  ];
}

/** The cdk-nag IAM5 finding ids of {@link modelInvocationStatements}. */
export function modelInvocationFindings(stack: Stack): string[] {
  return [
    stackArn(stack, 'bedrock', 'foundation-model/*', false),
    stackArn(stack, 'bedrock', 'inference-profile/*'),
    stackArn(stack, 'bedrock', 'application-inference-profile/*'),
    stackArn(stack, 'bedrock', 'foundation-model/*', false, '*'),
    stackArn(stack, 'bedrock', 'foundation-model/*', false, ''),
    stackArn(stack, 'bedrock', 'inference-profile/*', true, '*'),
    stackArn(stack, 'sagemaker', 'endpoint/*'),
  ].map((arn) => `AwsSolutions-IAM5[Resource::${arn}]`);
}
