/**
 * Loads a benchmark's tasks from row sources (files, S3, the Hub — opened by the caller),
 * rejecting duplicate task ids with the file and line of the second one.
 */
import type { AnyBenchmark } from '../benchmarks/index.ts';
import { InputError } from '../errors.ts';
import type { Task } from '../types.ts';
import type { LoadedBenchmark } from './plan.ts';

/** What layers/sources hands back for one file. */
export interface RowSourceLike {
  label: string;
  /** The split this file holds (published datasets ship one file per split). */
  split?: string;
  sha256(): Promise<string>;
  rows(): AsyncIterable<{ row: Record<string, unknown>; line: number; file: string }>;
}

/**
 * @param store optional per-task hook (e.g. moving large test data out of memory) applied as
 *   each task is parsed, so a multi-GB dataset never sits in memory whole.
 */
export async function loadTasks(
  benchmark: AnyBenchmark,
  spec: string,
  sources: readonly RowSourceLike[],
  digest: (parts: string[]) => string,
  store?: (task: Task) => Promise<Task>,
): Promise<LoadedBenchmark> {
  const tasks: Task[] = [];
  const seen = new Map<string, string>();
  const hashes: string[] = [];
  for (const source of sources) {
    for await (const { row, line, file } of source.rows()) {
      for (const parsed of benchmark.parseRow(row, { file, line })) {
        // A row that names no split belongs to its file's split.
        const task = source.split && (row.split === undefined || row.split === null || row.split === '') ? { ...parsed, split: source.split } : parsed;
        const first = seen.get(task.id);
        if (first) throw new InputError(`duplicate task id "${task.id}" (first at ${first})`, { file, line, field: 'id' });
        seen.set(task.id, `${file}:${line}`);
        tasks.push(store ? await store(task) : task);
      }
    }
    hashes.push(await source.sha256());
  }
  if (tasks.length === 0) throw new InputError(`no tasks in ${sources.map((s) => s.label).join(', ')}`, { field: 'benchmark' });
  return {
    benchmark,
    tasks,
    spec,
    source: sources.map((s) => s.label).join(', '),
    sha256: hashes.length === 1 ? (hashes[0] as string) : digest(hashes),
  };
}
