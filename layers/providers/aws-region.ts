/**
 * `bedrock:` and `sagemaker:` call a Regional AWS endpoint: without a Region every call fails
 * ("Region is missing"). A local run asks for it before it starts, the way the provider's own
 * client will: `--region` when given, else the SDK client's region chain. That chain
 * (@smithy/core 3.41.1, dist-es/submodules/config/config-resolver/regionConfig/config.js,
 * NODE_REGION_CONFIG_OPTIONS, loaded by the clients' runtimeConfig.js with preferredFile
 * "credentials") reads AWS_REGION, then the `region` of the profile (AWS_PROFILE, else
 * `default`) in the shared config and credentials files, then the EC2 instance metadata
 * service (getInstanceMetadataRegion, 1 s timeout), and otherwise throws "Region is missing".
 * Asking the client itself (`client.config.region()`) keeps every one of those sources working.
 */
import { InputError } from '#core/errors.ts';
import type { ProviderOptions } from './options.ts';

/** The kinds whose client needs a Region, and how to make that client (no call is made). */
const REGIONAL: Record<string, () => Promise<{ config: { region: () => Promise<string> }; destroy(): void }>> = {
  bedrock: async () => new (await import('@aws-sdk/client-bedrock-runtime')).BedrockRuntimeClient({}),
  sagemaker: async () => new (await import('@aws-sdk/client-sagemaker-runtime')).SageMakerRuntimeClient({}),
};

/**
 * Resolves to nothing when the provider of `kind` has the Region it needs (or needs none);
 * an InputError naming `--region` and AWS_REGION otherwise.
 */
export async function requireAwsRegion(kind: string, options: Pick<ProviderOptions, 'region'> = {}): Promise<void> {
  const make = REGIONAL[kind];
  if (!make || options.region !== undefined) return;
  const client = await make();
  try {
    await client.config.region();
  } catch (error) {
    throw new InputError(
      `${kind}: needs an AWS Region and none is set: pass --region <region> (e.g. --region us-east-1), set AWS_REGION, or give your AWS profile a region (${(error as Error).message})`,
      { field: 'model' },
    );
  } finally {
    client.destroy();
  }
}
