/**
 * The benchmarks polyeval knows. An explicit array with literal ids: adding a benchmark is
 * one file plus one line in {@link BENCHMARK_REGISTRY}. Everything else that lists
 * benchmarks — bundled suites, headline metrics, published datasets, Athena's partition
 * values, `polyeval list benchmarks` — is derived from the benchmarks' own fields here.
 *
 * @example
 * const bench = findBenchmark('abricot'); // → the ABRICOT adapter
 * const toy = createBenchmarkRegistry([myBenchmark]); // a registry of one (tests)
 */
import { abricot } from './abricot.ts';
import type { AnyBenchmark } from './benchmark.ts';
import { defineBenchmark } from './define-benchmark.ts';
import type { BundledSuiteSpec } from './description.ts';
import { kotlinHumanEval, mxeval } from './mxeval.ts';
import { rocode } from './rocode.ts';

/** A bundled suite with the benchmark it belongs to. */
export interface BundledSuite extends BundledSuiteSpec {
  benchmark: string;
}

/** A set of benchmarks and what derives from them. */
export interface BenchmarkRegistry {
  readonly benchmarks: readonly AnyBenchmark[];
  /** Every benchmark's bundled suites, in benchmark order. */
  readonly suites: readonly BundledSuite[];
  /** The benchmark with this id (or alias), if any. */
  find(id: string): AnyBenchmark | undefined;
}

/** `<prefix>:<file>` names that map onto a benchmark adapter. */
export const BENCHMARK_ALIASES: Readonly<Record<string, string>> = {};

/**
 * A registry over `benchmarks`.
 * @throws Error when two benchmarks share an id or two suites a name (a programming error).
 */
export function createBenchmarkRegistry(benchmarks: readonly AnyBenchmark[]): BenchmarkRegistry {
  const ids = benchmarks.map((b) => b.id);
  const dupId = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dupId !== undefined) throw new Error(`two benchmarks have the id "${dupId}"`);
  const suites = benchmarks.flatMap((b) => (b.bundled ?? []).map((s) => ({ ...s, benchmark: b.id })));
  const names = suites.map((s) => s.name);
  const dupName = names.find((n, i) => names.indexOf(n) !== i);
  if (dupName !== undefined) throw new Error(`two bundled suites are named "${dupName}"`);
  return {
    benchmarks,
    suites,
    find: (id) => {
      const target = BENCHMARK_ALIASES[id] ?? id;
      return benchmarks.find((b) => b.id === target);
    },
  };
}

export const BENCHMARK_REGISTRY: BenchmarkRegistry = createBenchmarkRegistry([
  defineBenchmark(abricot),
  defineBenchmark(rocode),
  defineBenchmark(kotlinHumanEval),
  defineBenchmark(mxeval),
]);

export const BENCHMARKS: readonly AnyBenchmark[] = BENCHMARK_REGISTRY.benchmarks;

export const BUNDLED_SUITES: readonly BundledSuite[] = BENCHMARK_REGISTRY.suites;

export function findBenchmark(id: string): AnyBenchmark | undefined {
  return BENCHMARK_REGISTRY.find(id);
}
