/**
 * The published datasets behind `-b <benchmark>` (each benchmark's `dataset`: its Hub
 * repository and preferred files), and how their files are found. A repository whose layout
 * changed still resolves: any readable data file is taken; a repository with only a
 * `datasets` loading script (ABRICOT's) resolves to the data URLs the script names.
 */
import { InputError } from '../core/errors.ts';
import type { AnyBenchmark } from '../core/benchmarks/index.ts';
import { BENCHMARK_REGISTRY, type BenchmarkRegistry } from '../core/benchmarks/index.ts';
import { DATA_FILE_PATTERN } from './format.ts';
import { downloadHubFile } from './hub/download-file.ts';
import { resolveHubFiles, type HubFile } from './hub/list-files.ts';
import { readFile } from 'node:fs/promises';
import type { SourceOptions } from './types.ts';

/** A benchmark id with a published dataset (`rocode`, `kotlin-humaneval`, `abricot`, …). */
export type NamedDataset = string;

/** The Hub repository of each benchmark with a published dataset, and the files preferred when present. */
export function namedDatasets(registry: BenchmarkRegistry = BENCHMARK_REGISTRY): ReadonlyArray<{ name: NamedDataset; repo: string; preferred: RegExp }> {
  return registry.benchmarks.flatMap((b) => (b.dataset ? [{ name: b.id, repo: b.dataset.hub, preferred: b.dataset.files }] : []));
}

/** One data file of a named dataset. */
export interface NamedDatasetFile {
  /** What {@link openRows} reads: `hf://datasets/...`, or `https://...` for script-only repos. */
  ref: string;
  /** Path in the repository, or the URL's path. */
  path: string;
  /** Split guessed from the file name (`val`/`dev` → `validation`). */
  split?: 'train' | 'validation' | 'test';
  /** Size in bytes, when the listing says. */
  size?: number;
}

/**
 * The refs of a named dataset's data files, in train/validation/test order where known; each
 * one opens with {@link openRows}.
 */
export async function resolveNamedDataset(
  name: NamedDataset,
  opts: SourceOptions,
  select: { revision?: string } = {},
  registry: BenchmarkRegistry = BENCHMARK_REGISTRY,
): Promise<string[]> {
  return (await resolveNamedDatasetFiles(name, opts, select, registry)).map((f) => f.ref);
}

/** Like {@link resolveNamedDataset}, with each file's path, guessed split and size. */
export async function resolveNamedDatasetFiles(
  name: NamedDataset,
  opts: SourceOptions,
  select: { revision?: string } = {},
  registry: BenchmarkRegistry = BENCHMARK_REGISTRY,
): Promise<NamedDatasetFile[]> {
  return resolveDatasetFiles(registry.find(name) ?? { id: name }, opts, select, registry);
}

/**
 * The data files of a benchmark's published dataset (its `dataset` field).
 * @throws InputError naming the benchmarks that have one when `benchmark` has none.
 */
export async function resolveDatasetFiles(
  benchmark: Pick<AnyBenchmark, 'id' | 'dataset'>,
  opts: SourceOptions,
  select: { revision?: string } = {},
  registry: BenchmarkRegistry = BENCHMARK_REGISTRY,
): Promise<NamedDatasetFile[]> {
  const dataset = benchmark.dataset;
  if (!dataset)
    throw new InputError(
      `unknown dataset "${benchmark.id}"; known: ${namedDatasets(registry)
        .map((d) => d.name)
        .join(', ')}`,
    );
  const spec = { repo: dataset.hub, preferred: dataset.files };
  const revision = select.revision ?? 'main';
  const all = await resolveHubFiles(spec.repo, opts, { revision });
  const preferred = all.filter((f) => spec.preferred.test(f.path));
  const data = preferred.length > 0 ? preferred : all.filter((f) => DATA_FILE_PATTERN.test(f.path));
  if (data.length > 0) return sortBySplit(data.map(fromHubFile));
  const fromScripts = await urlsFromLoadingScripts(spec.repo, all, opts, revision);
  if (fromScripts.length > 0) return sortBySplit(fromScripts);
  throw new InputError(
    `no readable data file (.jsonl, .csv, .tsv, .parquet) in dataset ${spec.repo}@${revision}; files: ${all.map((f) => f.path).join(', ') || 'none'}`,
  );
}

function fromHubFile(file: HubFile): NamedDatasetFile {
  const split = splitOf(file.path);
  return { ref: file.ref, path: file.path, size: file.size, ...(split ? { split } : {}) };
}

/** A script-only repository (a `datasets` loading script) names its data by URL. */
async function urlsFromLoadingScripts(repo: string, files: HubFile[], opts: SourceOptions, revision: string): Promise<NamedDatasetFile[]> {
  const urls = new Set<string>();
  for (const script of files.filter((f) => f.path.endsWith('.py'))) {
    const cached = await downloadHubFile(repo, script.path, opts, { revision });
    const text = await readFile(cached.path, 'utf8');
    for (const m of text.matchAll(/https?:\/\/[^\s"'<>]+/g)) {
      const url = m[0];
      if (DATA_FILE_PATTERN.test(new URL(url).pathname)) urls.add(url);
    }
  }
  return [...urls].sort().map((url) => {
    const path = new URL(url).pathname;
    const split = splitOf(path);
    return { ref: url, path, ...(split ? { split } : {}) };
  });
}

function splitOf(path: string): NamedDatasetFile['split'] | undefined {
  const name = (path.split('/').pop() ?? path).toLowerCase();
  if (/(^|[^a-z])train/.test(name)) return 'train';
  if (/(^|[^a-z])(val|valid|validation|dev)([^a-z]|$)/.test(name)) return 'validation';
  if (/(^|[^a-z])test/.test(name)) return 'test';
  return undefined;
}

const SPLIT_ORDER = { train: 0, validation: 1, test: 2 } as const;

function sortBySplit(files: NamedDatasetFile[]): NamedDatasetFile[] {
  return [...files].sort((a, b) => (a.split ? SPLIT_ORDER[a.split] : 3) - (b.split ? SPLIT_ORDER[b.split] : 3) || a.path.localeCompare(b.path));
}
