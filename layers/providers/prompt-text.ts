/**
 * The prompt's flat text (one implementation, in core: cost estimates use it too) and the
 * per-sample seed, for the providers.
 */
export { promptText } from '#core/models/index.ts';

/** Seed for sample `sample` when a base seed is set: distinct per sample, reproducible per run. */
export function sampleSeed(seed: number | undefined, sample: number): number | undefined {
  return seed === undefined ? undefined : seed + sample;
}
