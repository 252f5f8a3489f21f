/**
 * Model providers over the network (DESIGN §8): `bedrock:`, `sagemaker:`, `openai:`, with
 * one call policy (adaptive concurrency, retries with backoff and jitter, Retry-After, a
 * hard timeout), the model-capabilities table that adapts settings before any call, and
 * the price table that turns their tokens into an estimated cost.
 *
 * @example
 * const provider = createNetworkProvider('openai:http://127.0.0.1:8000/v1#qwen', { concurrency: 8 });
 * if (provider) console.log((await provider.generate(req)).text);
 */
import type { Provider } from '#core/models/provider.ts';
import { BedrockProvider } from './bedrock.ts';
import { OpenAiProvider } from './openai.ts';
import { resolveOptions, type ProviderOptions } from './options.ts';
import { SageMakerProvider } from './sagemaker.ts';
import { parseNetworkSpec } from './spec.ts';

export type { ProviderOptions } from './options.ts';
export { DEFAULT_CONCURRENCY, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from './options.ts';
export { parseNetworkSpec, type NetworkSpec, type SageMakerFlavour } from './spec.ts';
export { ProviderCallError } from './failures.ts';
export {
  loadPriceTable,
  shippedPriceTable,
  estimateCost,
  estimateComputeCost,
  findModelPrice,
  parseAssumedPrice,
  priceForRun,
  costAt,
  type PriceTable,
  type ModelPrice,
  type ComputeUsage,
} from './prices.ts';
export { estimateTokens, CHARS_PER_TOKEN } from './tokens.ts';
export { loadCapabilityTable, shippedCapabilityTable, capabilitiesOf, adaptParams, type CapabilityTable, type ModelCapabilities } from './capabilities.ts';
export { BedrockProvider } from './bedrock.ts';
export { SageMakerProvider } from './sagemaker.ts';
export { OpenAiProvider } from './openai.ts';

/**
 * The provider for a `bedrock:`, `sagemaker:` or `openai:` spec; undefined for any other
 * scheme (the caller tries its pure providers). A malformed spec or option is an InputError.
 * Failures of calls surface as `ProviderError`s with `retryable` set, never as crashes.
 */
export function createNetworkProvider(spec: string, opts: ProviderOptions = {}): Provider | undefined {
  const parsed = parseNetworkSpec(spec);
  if (!parsed) return undefined;
  const resolved = resolveOptions(opts);
  switch (parsed.scheme) {
    case 'bedrock':
      return new BedrockProvider(spec, parsed.modelId, resolved);
    case 'sagemaker':
      return new SageMakerProvider(spec, parsed.endpoint, parsed.flavour, resolved);
    case 'openai':
      return new OpenAiProvider(spec, parsed.baseUrl, parsed.model, resolved);
    default: {
      const unreachable: never = parsed;
      return unreachable;
    }
  }
}
