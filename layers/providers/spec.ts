/**
 * Parsing of network provider specs (DESIGN §8), derived from the registry's network kinds.
 * Only the first ':' separates the scheme, so Bedrock ids such as
 * `us.anthropic.claude-3-5-haiku-20241022-v1:0` and URLs keep theirs.
 */
import { PROVIDER_REGISTRY, type RegisteredNetworkSpec } from './registry.ts';

export type { SageMakerFlavour } from './sagemaker.ts';

/** Any network kind's parsed spec: derived from the registry's list, so a new kind needs no edit here. */
export type NetworkSpec = RegisteredNetworkSpec;

/**
 * Parses a network provider's spec (`bedrock:<model-id>`, `sagemaker:<endpoint>[#tgi|#openai]`,
 * `openai:<base-url>#<model>`…). Returns undefined for any other scheme; throws an InputError
 * naming the spec when the scheme is known but the rest is malformed.
 *
 * @example
 * parseNetworkSpec('openai:http://127.0.0.1:8000/v1#qwen2.5-7b')
 * // → { scheme: 'openai', baseUrl: 'http://127.0.0.1:8000/v1', model: 'qwen2.5-7b' }
 */
export function parseNetworkSpec(spec: string): NetworkSpec | undefined {
  const colon = spec.indexOf(':');
  if (colon < 0) return undefined;
  const kind = PROVIDER_REGISTRY.network.find((k) => k.scheme === spec.slice(0, colon));
  return kind?.parse(spec, spec.slice(colon + 1)) as NetworkSpec | undefined;
}
