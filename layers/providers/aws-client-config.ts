/**
 * Configuration shared by the AWS SDK clients: our call policy is the only retry loop
 * (maxAttempts 1), the request handler carries the per-call timeout, and region and
 * endpoint come from the options or, when absent, from the SDK's standard chain — which
 * already honours AWS_REGION, AWS_PROFILE and AWS_ENDPOINT_URL[_<SERVICE>].
 *
 * Both clients get the HTTP/1.1 handler. The Bedrock runtime client defaults to HTTP/2,
 * which only its bidirectional-streaming operation needs; HTTP/1.1 also works through
 * plain-HTTP endpoint overrides (proxies, local fakes), where HTTP/2 has no upgrade path.
 */
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { ResolvedOptions } from './options.ts';

/** The config object both runtime clients accept. */
export interface AwsClientConfig {
  maxAttempts: number;
  region?: string;
  endpoint?: string;
  requestHandler: NodeHttpHandler;
}

/** Client config for one provider. */
export function awsClientConfig(opts: ResolvedOptions): AwsClientConfig {
  return {
    maxAttempts: 1,
    ...(opts.region !== undefined ? { region: opts.region } : {}),
    ...(opts.endpointUrl !== undefined ? { endpoint: opts.endpointUrl } : {}),
    requestHandler: new NodeHttpHandler({
      requestTimeout: opts.timeoutMs,
      connectionTimeout: Math.min(opts.timeoutMs, 10_000),
    }),
  };
}
