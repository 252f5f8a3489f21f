/**
 * Parses `-b <benchmark>`: `sample` (every bundled suite), `sample/<name>`, `<id>:<path>`
 * (a local path, `s3://…` or `hf://…`) or `<id>` (the published dataset on the Hub).
 */
import { InputError } from '../errors.ts';
import type { AnyBenchmark } from './benchmark.ts';
import { bindProtocol, type ProtocolChoice } from './protocol.ts';
import { BENCHMARK_REGISTRY, type BenchmarkRegistry, type BundledSuite } from './registry.ts';

export type BenchmarkSource =
  | { kind: 'bundled'; benchmark: AnyBenchmark; suite: BundledSuite; spec: string }
  | { kind: 'file'; benchmark: AnyBenchmark; ref: string; spec: string }
  | { kind: 'named'; benchmark: AnyBenchmark; spec: string };

function known(registry: BenchmarkRegistry): string {
  return [...registry.benchmarks.map((b) => b.id), 'sample', ...registry.suites.map((s) => `sample/${s.name}`)].join(', ');
}

/**
 * Resolves a benchmark spec to one source per run (`sample` gives one per bundled suite),
 * each benchmark bound to the protocol `choice` names (its default when none).
 * @throws InputError for an unknown benchmark, suite or protocol.
 */
export function parseBenchmarkSpec(spec: string, choice: ProtocolChoice = {}, registry: BenchmarkRegistry = BENCHMARK_REGISTRY): BenchmarkSource[] {
  return parseSources(spec, registry).map((source) => ({ ...source, benchmark: bindProtocol(source.benchmark, choice) }));
}

function parseSources(spec: string, registry: BenchmarkRegistry): BenchmarkSource[] {
  const text = spec.trim();
  const bundled = (suite: BundledSuite): BenchmarkSource => {
    const benchmark = registry.find(suite.benchmark);
    if (!benchmark) throw new Error(`bundled suite ${suite.name} names unknown benchmark ${suite.benchmark}`);
    return { kind: 'bundled', benchmark, suite, spec: `sample/${suite.name}` };
  };
  if (text === 'sample') return registry.suites.map((suite) => bundled(suite));
  if (text.startsWith('sample/')) {
    const name = text.slice('sample/'.length).replace(/\/$/, '');
    const suite = registry.suites.find((s) => s.name === name);
    if (!suite)
      throw new InputError(`unknown bundled suite "${text}" (bundled: ${registry.suites.map((s) => `sample/${s.name}`).join(', ')})`, { field: 'benchmark' });
    return [bundled(suite)];
  }
  const colon = text.indexOf(':');
  if (colon > 0) {
    const id = text.slice(0, colon);
    const ref = text.slice(colon + 1);
    const benchmark = registry.find(id);
    if (!benchmark) throw new InputError(`unknown benchmark "${id}" in "${text}" (known: ${known(registry)})`, { field: 'benchmark' });
    if (!ref) throw new InputError(`"${text}" names no file after "${id}:"`, { field: 'benchmark' });
    return [{ kind: 'file', benchmark, ref, spec: text }];
  }
  const benchmark = registry.find(text);
  if (!benchmark) throw new InputError(`unknown benchmark "${text}" (known: ${known(registry)}; or <benchmark>:<path>)`, { field: 'benchmark' });
  return [{ kind: 'named', benchmark, spec: text }];
}
