/**
 * The benchmarks polyeval knows, and the suites bundled with it. Explicit arrays with
 * literal ids: adding a benchmark is one file plus one line here.
 *
 * @example
 * const bench = findBenchmark('abricot'); // → the ABRICOT adapter
 */
import { abricot } from './abricot.ts';
import type { AnyBenchmark } from './benchmark.ts';
import { kotlinHumanEval, mxeval } from './mxeval.ts';
import { rocode } from './rocode.ts';

export const BENCHMARKS: readonly AnyBenchmark[] = [abricot, rocode, kotlinHumanEval, mxeval] as unknown as AnyBenchmark[];

/** `<prefix>:<file>` names that map onto a benchmark adapter. */
export const BENCHMARK_ALIASES: Readonly<Record<string, string>> = {};

export interface BundledSuite {
  /** `sample/<name>` */
  name: string;
  benchmark: string;
  /** Path under the package's `sample/` folder. */
  file: string;
  description: string;
}

export const BUNDLED_SUITES: readonly BundledSuite[] = [
  { name: 'abricot', benchmark: 'abricot', file: 'abricot/items.jsonl', description: '26 Italian sentences × 2 subtasks, hand-written, with plausible gold scores' },
  { name: 'rocode', benchmark: 'rocode', file: 'rocode/tasks.jsonl', description: 'Romanian infoarena-style problems with tests and C, C++ and Python reference solutions' },
  { name: 'kotlin-humaneval', benchmark: 'kotlin-humaneval', file: 'kotlin-humaneval/tasks.jsonl', description: 'Kotlin function-completion tasks with KDoc, tests in main() and canonical solutions' },
];

export function findBenchmark(id: string): AnyBenchmark | undefined {
  const target = BENCHMARK_ALIASES[id] ?? id;
  return BENCHMARKS.find((b) => b.id === target);
}
