/**
 * The benchmarks (DESIGN §6): the registry of every benchmark polyeval knows, what each says
 * about itself (slices, resources, its own metrics and report section, its headline), the
 * protocols it can be evaluated by, and the `-b` spec. The adapters themselves (abricot.ts,
 * rocode.ts, mxeval.ts) are reached through {@link BENCHMARK_REGISTRY}.
 */
export type { AnyBenchmark, FieldMapping } from './benchmark.ts';
export type { BenchmarkResources, ExtraMetrics, ResourceId } from './description.ts';
export { computeExtraMetrics } from './extra-metrics.ts';
export { headlineKeys, headlineMetric, headlineSlices } from './headline.ts';
export {
  GOLD_RULES,
  PROMPT_LANGUAGES,
  PromptStyleSchema,
  TIME_CLOCKS,
  bindProtocol,
  type GoldRule,
  type PromptLanguage,
  type PromptStyle,
  type ProtocolChoice,
  type ProtocolDefinition,
  type RunProtocol,
} from './protocol.ts';
export { BENCHMARKS, BENCHMARK_REGISTRY, BUNDLED_SUITES, findBenchmark, type BenchmarkRegistry } from './registry.ts';
export { parseBenchmarkSpec, type BenchmarkSource } from './spec.ts';
