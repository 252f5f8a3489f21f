/**
 * Turns `-b <spec>` into loaded tasks: bundled suites from the package's `sample/`, files
 * (local, s3://, hf://) through layers/sources, named datasets from the Hugging Face Hub.
 */
import { createHash } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { parseBenchmarkSpec, type BenchmarkSource } from '#core/benchmarks/spec.ts';
import { loadTasks } from '#core/run/load.ts';
import type { LoadedBenchmark } from '#core/run/plan.ts';
import { openRows, resolveNamedDataset, type SourceOptions } from '#sources/index.ts';

export interface LoadOptions {
  packageRoot: string;
  cacheDir: string;
  env?: NodeJS.ProcessEnv;
}

const digest = (parts: string[]): string => createHash('sha256').update(parts.join('\n')).digest('hex');

export async function loadSource(source: BenchmarkSource, opts: LoadOptions): Promise<LoadedBenchmark> {
  const sourceOptions: SourceOptions = { cacheDir: opts.cacheDir, env: opts.env ?? process.env };
  let refs: string[];
  switch (source.kind) {
    case 'bundled':
      refs = [resolve(opts.packageRoot, 'sample', source.suite.file)];
      break;
    case 'file':
      refs = [source.ref];
      break;
    case 'named':
      refs = await resolveNamedDataset(source.benchmark.id as 'rocode' | 'kotlin-humaneval' | 'abricot', sourceOptions);
      break;
    default: {
      const never: never = source;
      throw new Error(`unknown source ${(never as BenchmarkSource).kind}`);
    }
  }
  const rowSources = [];
  for (const ref of refs) rowSources.push(await openRows(ref, sourceOptions));
  const loaded = await loadTasks(source.benchmark, source.spec, rowSources, digest);
  // Test files named relative to a local dataset live beside it.
  const local = refs.length === 1 && refs[0] && !/^[a-z0-9]+:\/\//i.test(refs[0]) ? dirname(resolve(refs[0])) : undefined;
  if (local) {
    for (const task of loaded.tasks) {
      if (task.kind !== 'io-tests') continue;
      task.tests = task.tests.map((t) => ({
        ...t,
        ...(t.inputPath ? { inputPath: resolve(local, t.inputPath) } : {}),
        ...(t.outputPath ? { outputPath: resolve(local, t.outputPath) } : {}),
      }));
    }
  }
  return loaded;
}

export async function loadBenchmarks(spec: string, opts: LoadOptions): Promise<LoadedBenchmark[]> {
  const out: LoadedBenchmark[] = [];
  for (const source of parseBenchmarkSpec(spec)) out.push(await loadSource(source, opts));
  return out;
}
