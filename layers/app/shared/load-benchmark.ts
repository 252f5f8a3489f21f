/**
 * Turns `-b <spec>` into loaded tasks: bundled suites from the package's `sample/`, files
 * (local, s3://, hf://) through layers/sources, named datasets from the Hugging Face Hub.
 */
import { createHash } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import type { BenchmarkSource } from '#core/benchmarks/index.ts';
import { loadTasks } from '#core/run/index.ts';
import type { LoadedBenchmark } from '#core/run/index.ts';
import { openRows, resolveDatasetFiles, type SourceOptions } from '#sources/index.ts';
import { InputError } from '#core/errors.ts';
import { isIoTestsTask } from '#core/scorers/index.ts';
import type { Task } from '#core/types.ts';
import { access, mkdir, rename, writeFile } from 'node:fs/promises';

export interface LoadOptions {
  packageRoot: string;
  cacheDir: string;
  env?: NodeJS.ProcessEnv;
  /** For a published dataset: read only this split's file (default: its test split when it has one). */
  split?: string;
}

/** Tests larger than this are kept on disk (content-addressed in the cache), not in memory. */
const SPILL_BYTES = 64 * 1024;

async function spill(cacheDir: string, text: string): Promise<string> {
  const sha = createHash('sha256').update(text).digest('hex');
  const path = join(cacheDir, 'tests', sha.slice(0, 2), `${sha}.txt`);
  try {
    await access(path);
  } catch {
    await mkdir(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    await writeFile(tmp, text);
    await rename(tmp, path);
  }
  return path;
}

/** Moves large inline tests of io-tests tasks to files, so RoCode's big splits stream through. */
function spiller(cacheDir: string): (task: Task) => Promise<Task> {
  return async (task) => {
    if (!isIoTestsTask(task) || !task.tests.some((t) => (t.input?.length ?? 0) + (t.output?.length ?? 0) > SPILL_BYTES)) return task;
    const tests = [];
    for (const t of task.tests) {
      if ((t.input?.length ?? 0) + (t.output?.length ?? 0) <= SPILL_BYTES || t.input === undefined || t.output === undefined) {
        tests.push(t);
        continue;
      }
      const { input, output, ...rest } = t;
      tests.push({ ...rest, inputPath: await spill(cacheDir, input), outputPath: await spill(cacheDir, output) });
    }
    return { ...task, tests };
  };
}

async function namedRefs(source: BenchmarkSource, opts: LoadOptions, sourceOptions: SourceOptions): Promise<{ ref: string; split?: string }[]> {
  const files = await resolveDatasetFiles(source.benchmark, sourceOptions);
  const split = opts.split ?? (files.some((f) => f.split === 'test') ? 'test' : undefined);
  const chosen = split && files.some((f) => f.split) ? files.filter((f) => f.split === split || !f.split) : files;
  if (chosen.length === 0)
    throw new InputError(`${source.benchmark.id} has no "${split}" split (files: ${files.map((f) => f.path).join(', ')})`, { field: 'split' });
  return chosen;
}

const digest = (parts: string[]): string => createHash('sha256').update(parts.join('\n')).digest('hex');

/** The files a source reads (with the split each holds, for published datasets). */
export async function sourceRefs(source: BenchmarkSource, opts: LoadOptions): Promise<{ ref: string; split?: string }[]> {
  const sourceOptions: SourceOptions = { cacheDir: opts.cacheDir, env: opts.env ?? process.env };
  switch (source.kind) {
    case 'bundled':
      return [{ ref: resolve(opts.packageRoot, 'sample', source.suite.file) }];
    case 'file':
      return [{ ref: source.ref }];
    case 'named':
      return namedRefs(source, opts, sourceOptions);
    default: {
      const never: never = source;
      throw new Error(`unknown source ${(never as BenchmarkSource).kind}`);
    }
  }
}

export async function loadSource(source: BenchmarkSource, opts: LoadOptions): Promise<LoadedBenchmark> {
  const sourceOptions: SourceOptions = { cacheDir: opts.cacheDir, env: opts.env ?? process.env };
  const refs = await sourceRefs(source, opts);
  const rowSources = [];
  for (const { ref, split } of refs) {
    const rows = await openRows(ref, sourceOptions);
    rowSources.push({ label: rows.label, sha256: () => rows.sha256(), rows: () => rows.rows(), ...(split ? { split } : {}) });
  }
  const loaded = await loadTasks(source.benchmark, source.spec, rowSources, digest, spiller(opts.cacheDir));
  // Test files named relative to a local dataset live beside it.
  const only = refs.length === 1 ? refs[0]?.ref : undefined;
  const local = only && !/^[a-z0-9]+:\/\//i.test(only) ? dirname(resolve(only)) : undefined;
  if (local) {
    for (const task of loaded.tasks) {
      if (!isIoTestsTask(task)) continue;
      task.tests = task.tests.map((t) => ({
        ...t,
        ...(t.inputPath ? { inputPath: resolve(local, t.inputPath) } : {}),
        ...(t.outputPath ? { outputPath: resolve(local, t.outputPath) } : {}),
      }));
      await requireTestFiles(task.tests, task.id, only as string);
    }
  }
  return loaded;
}

/** A test file a local dataset names but does not have is the dataset's fault, found before any item runs (not an SE per sample). */
async function requireTestFiles(tests: readonly { inputPath?: string; outputPath?: string }[], taskId: string, file: string): Promise<void> {
  for (const [i, t] of tests.entries()) {
    for (const [field, path] of [
      ['input_path', t.inputPath],
      ['output_path', t.outputPath],
    ] as const) {
      if (path === undefined) continue;
      try {
        await access(path);
      } catch {
        throw new InputError(`task ${taskId}: test file not found: ${path}`, { file, field: `tests[${i}].${field}` });
      }
    }
  }
}
