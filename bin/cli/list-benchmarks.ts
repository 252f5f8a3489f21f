/**
 * The rows of `polyeval list benchmarks`: every benchmark of a registry, then its bundled
 * suites, each with its scorer and protocols (names in the table, objects in `--json`).
 */
import type { AnyBenchmark } from '#core/benchmarks/index.ts';
import { BENCHMARK_REGISTRY, type BenchmarkRegistry } from '#core/benchmarks/index.ts';

export function benchmarkListRows(json: boolean, registry: BenchmarkRegistry = BENCHMARK_REGISTRY): Record<string, unknown>[] {
  const protocols = (b: AnyBenchmark | undefined): unknown =>
    json
      ? (b?.protocols ?? []).map((p, i) => ({ name: p.name, default: i === 0, description: p.description, settings: p.settings }))
      : (b?.protocols ?? []).map((p, i) => (i === 0 ? `${p.name} (default)` : p.name)).join(', ');
  return [
    ...registry.benchmarks.map((b) => ({ name: b.id, kind: 'benchmark', scorer: b.scorer, description: b.title, protocols: protocols(b) })),
    ...registry.suites.map((s) => {
      const b = registry.find(s.benchmark);
      return { name: `sample/${s.name}`, kind: 'bundled suite', scorer: b?.scorer ?? '', description: s.description, protocols: protocols(b) };
    }),
  ];
}
