/**
 * Configuration shared by the AWS SDK clients: our call policy is the only retry loop
 * (maxAttempts 1), the request handler carries the per-call timeout, and region and
 * endpoint come from the options or, when absent, from the SDK's standard chain — which
 * already honours AWS_REGION, AWS_PROFILE and AWS_ENDPOINT_URL[_<SERVICE>].
 */
import type { ResolvedOptions } from './options.ts';

/** The config object both runtime clients accept. */
export interface AwsClientConfig {
  maxAttempts: number;
  region?: string;
  endpoint?: string;
  requestHandler: { requestTimeout: number; connectionTimeout: number };
}

/** Client config for one provider. */
export function awsClientConfig(opts: ResolvedOptions): AwsClientConfig {
  return {
    maxAttempts: 1,
    ...(opts.region !== undefined ? { region: opts.region } : {}),
    ...(opts.endpointUrl !== undefined ? { endpoint: opts.endpointUrl } : {}),
    requestHandler: { requestTimeout: opts.timeoutMs, connectionTimeout: Math.min(opts.timeoutMs, 10_000) },
  };
}
