/**
 * Model providers over the network (DESIGN §8), one file each in the registry, with
 * one call policy (adaptive concurrency, retries with backoff and jitter, Retry-After, a
 * hard timeout), the model-capabilities table that adapts settings before any call, and
 * the price table that turns their tokens into an estimated cost.
 *
 * @example
 * const provider = createNetworkProvider('openai:http://127.0.0.1:8000/v1#qwen', { concurrency: 8 });
 * if (provider) console.log((await provider.generate(req)).text);
 */
import type { Provider } from '#core/models/index.ts';
import type { ProviderOptions } from './options.ts';
import { PROVIDER_REGISTRY } from './registry.ts';

export type { ProviderOptions } from './options.ts';
export { DEFAULT_CONCURRENCY, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from './options.ts';
export { parseNetworkSpec, type NetworkSpec, type SageMakerFlavour } from './spec.ts';
export { PROVIDER_REGISTRY, createProviderRegistry, isBilled, isTablePriced, schemesReading, type ProviderRegistry } from './registry.ts';
export { ProviderCallError } from './failures.ts';
export {
  loadPriceTable,
  shippedPriceTable,
  estimateCost,
  estimateComputeCost,
  findModelPrice,
  parseAssumedPrice,
  priceForRun,
  resolveModelPrice,
  loadUserPrices,
  type UserPrices,
  costAt,
  batchPriceOf,
  type PriceTable,
  type ModelPrice,
  type ComputeUsage,
} from './prices.ts';
export { estimateTokens, CHARS_PER_TOKEN } from './tokens.ts';
export { loadCapabilityTable, shippedCapabilityTable, capabilitiesOf, adaptParams, type CapabilityTable, type ModelCapabilities } from './capabilities.ts';
export { BedrockProvider, bedrock } from './bedrock.ts';
export { requireAwsRegion } from './aws-region.ts';
export { SageMakerProvider } from './sagemaker.ts';
export { OpenAiProvider, applyWireHooks, type WireHooks } from './openai.ts';
export { openAiLikeKind, type OpenAiLikeApi } from './openai-like.ts';
export { AWS_PRICES } from './aws-prices.ts';
export { parseKeyHosts, type KeyHostRule } from './key-hosts.ts';
export { BEDROCK_BATCH_QUOTAS, bedrockBatchLimits, type BedrockBatchQuotas } from './batch/bedrock-quotas.ts';

/**
 * The provider of a network spec (a registry kind with a parser); undefined for any other
 * scheme (the caller tries its pure providers). A malformed spec or option is an InputError.
 * Failures of calls surface as `ProviderError`s with `retryable` set, never as crashes.
 */
export function createNetworkProvider(spec: string, opts: ProviderOptions = {}): Provider | undefined {
  const found = PROVIDER_REGISTRY.find(spec);
  const kind = PROVIDER_REGISTRY.network.find((k) => k === found?.kind);
  return kind && found ? kind.create(found.rest, { spec, options: opts }) : undefined;
}
