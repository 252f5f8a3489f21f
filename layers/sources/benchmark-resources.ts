/**
 * Loads the resources benchmark-specific metrics declare (`ExtraMetrics.needs`), for the local
 * run and the cloud aggregate alike.
 */
import type { BenchmarkResources, ResourceId } from '../core/benchmarks/index.ts';
import { loadRomanianLexicon } from './romanian-lexicon.ts';

/** Each resource named in `needs` (the lexicon is memoised per cache folder by its loader). */
export async function loadBenchmarkResources(needs: readonly ResourceId[], opts: { cacheDir?: string } = {}): Promise<Partial<BenchmarkResources>> {
  const out: Partial<BenchmarkResources> = {};
  for (const need of new Set(needs)) {
    switch (need) {
      case 'romanian-lexicon':
        out[need] = await loadRomanianLexicon(opts);
        break;
      default: {
        const never: never = need;
        throw new Error(`unknown benchmark resource ${String(never)}`);
      }
    }
  }
  return out;
}
