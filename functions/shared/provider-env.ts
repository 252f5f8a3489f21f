/**
 * The environment a function's model providers read their API keys from: its own, plus the keys
 * of the deployment's SSM path (PROVIDER_KEYS_PATH, layers/aws/ssm-provider-keys.ts). Read on
 * first use and again after {@link KEYS_TTL_MS}, so a key put or rotated with
 * `aws ssm put-parameter` reaches running containers within minutes, without a deploy; a
 * function whose runs need no key never calls SSM.
 */
import type { SSMClient } from '@aws-sdk/client-ssm';
import { readProviderKeys } from '#aws/index.ts';
import { InputError } from '#core/errors.ts';

/** How long a container keeps the keys it read. */
export const KEYS_TTL_MS = 5 * 60_000;

export interface ProviderEnvOptions {
  env?: NodeJS.ProcessEnv;
  /** The SSM client (built on first use by default). */
  ssm?: () => Promise<SSMClient>;
  clock?: () => number;
}

/** A function returning the providers' environment: `env` with the path's keys over it (`env` alone without PROVIDER_KEYS_PATH). */
export function providerEnv(options: ProviderEnvOptions = {}): () => Promise<NodeJS.ProcessEnv> {
  const env = options.env ?? process.env;
  const path = env.PROVIDER_KEYS_PATH?.trim();
  if (!path) return () => Promise.resolve(env);
  const clock = options.clock ?? Date.now;
  let client: Promise<SSMClient> | undefined;
  const ssm = (): Promise<SSMClient> => (client ??= options.ssm ? options.ssm() : import('@aws-sdk/client-ssm').then(({ SSMClient }) => new SSMClient({})));
  let cached: { at: number; value: Promise<NodeJS.ProcessEnv> } | undefined;
  return () => {
    const now = clock();
    if (!cached || now - cached.at >= KEYS_TTL_MS) {
      const value = ssm()
        .then((c) => readProviderKeys(c, path))
        .then((keys) => ({ ...env, ...keys }));
      // A failed read is not kept: the next call tries again.
      value.catch(() => {
        if (cached?.value === value) cached = undefined;
      });
      cached = { at: now, value };
    }
    return cached.value;
  };
}

/**
 * A provider's "key not set" refusal as a deployment's user can act on it: where the key goes.
 * Other errors pass unchanged.
 */
export function withKeysHint(error: unknown, env: NodeJS.ProcessEnv = process.env): unknown {
  if (!(error instanceof InputError) || error.location.field !== 'apiKeyEnv') return error;
  const path = env.PROVIDER_KEYS_PATH?.trim();
  const variable = /environment variable (\w+)/.exec(error.detail)?.[1] ?? 'the key';
  const where = path ? `put it in SSM as ${path}/${variable} (docs/aws.md, "Provider API keys")` : 'this deployment gives its functions no PROVIDER_KEYS_PATH';
  return new InputError(`${error.detail}: ${where}`, error.location, { cause: error });
}
