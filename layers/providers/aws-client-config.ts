/**
 * Configuration shared by the AWS SDK clients: our call policy is the only retry loop
 * (maxAttempts 1), the request handler carries the per-call timeout, and region and
 * endpoint come from the options or, when absent, from the SDK's standard chain — which
 * already honours AWS_REGION, AWS_PROFILE and AWS_ENDPOINT_URL[_<SERVICE>].
 *
 * Both clients get the HTTP/1.1 handler. The Bedrock runtime client defaults to HTTP/2,
 * which only its bidirectional-streaming operation needs; HTTP/1.1 also works through
 * plain-HTTP endpoint overrides (proxies, local fakes), where HTTP/2 has no upgrade path.
 *
 * The SDK loads with a provider's first call ({@link lazyClient}): a run with another
 * provider, or a CLI command that calls no model, never pays for loading it.
 */
import type { NodeHttpHandler } from '@smithy/node-http-handler';
import type { ResolvedOptions } from './options.ts';

/** The config object both runtime clients accept. */
export interface AwsClientConfig {
  maxAttempts: number;
  region?: string;
  endpoint?: string;
  requestHandler: NodeHttpHandler;
}

/** Client config for one provider. */
export async function awsClientConfig(opts: ResolvedOptions): Promise<AwsClientConfig> {
  const { NodeHttpHandler } = await import('@smithy/node-http-handler');
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

/** A client made on first use from its SDK module (loaded then), and destroyed only if it was made. */
export interface LazyClient<M, C> {
  get(): Promise<{ sdk: M; client: C }>;
  destroy(): void;
}

/** A {@link LazyClient}: `load` imports the SDK module, `make` builds the client from it and the provider's config. */
export function lazyClient<M, C extends { destroy(): void }>(
  load: () => Promise<M>,
  make: (sdk: M, config: AwsClientConfig) => C,
  opts: ResolvedOptions,
): LazyClient<M, C> {
  let made: Promise<{ sdk: M; client: C }> | undefined;
  let client: C | undefined;
  return {
    get: () =>
      (made ??= (async () => {
        const sdk = await load();
        client = make(sdk, await awsClientConfig(opts));
        return { sdk, client };
      })()),
    destroy: () => client?.destroy(),
  };
}
