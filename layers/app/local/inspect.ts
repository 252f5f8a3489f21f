/**
 * `polyeval inspect`: how a dataset's rows become tasks, without running anything — the
 * files and their detected format, which column feeds each task field, rows and tasks per
 * split, and the first task's rendered prompt and test summary. A row that does not parse
 * is reported (file, line, field) beside everything read before it, never a crash.
 */
import type { AnyBenchmark, FieldMapping } from '#core/benchmarks/index.ts';
import type { ProtocolChoice, RunProtocol } from '#core/benchmarks/index.ts';
import { parseBenchmarkSpec, type BenchmarkSource } from '#core/benchmarks/index.ts';
import { InputError } from '#core/errors.ts';
import { scorerOf } from '#core/scorers/index.ts';
import type { Task } from '#core/types.ts';
import { fileKindOf, openRows } from '#sources/index.ts';
import { sourceRefs, type LoadOptions } from '../shared/load-benchmark.ts';

export interface InspectedFile {
  source: string;
  format: string;
  gzip: boolean;
  /** The split the file holds (published datasets ship one file per split). */
  split: string | null;
  rows: number;
  columns: string[];
}

export interface InspectedField {
  field: string;
  /** The column read, or null when none of the aliases is present. */
  column: string | null;
  required: boolean;
  aliases: readonly string[];
  note?: string;
}

export interface Inspection {
  benchmark: string;
  title: string;
  spec: string;
  scorer: string;
  protocol: RunProtocol;
  files: InspectedFile[];
  mapping: InspectedField[];
  /** Rows and tasks per split (a row's split is the split of its tasks). */
  splits: Record<string, { rows: number; tasks: number }>;
  tasks: number;
  /** The first row that does not parse, with its file, line and field; reading stopped there. */
  error: string | null;
  first_task: FirstTask | null;
}

export interface FirstTask {
  id: string;
  split: string;
  prompt: { style: string; completion: string | null; messages: { role: string; content: string }[] };
  tests: Record<string, unknown>;
}

/** What `inspect` prints about a task's scoring material (its scorer's view). */
function testSummary(benchmark: AnyBenchmark, task: Task): Record<string, unknown> {
  return scorerOf(task).inspect(task, benchmark);
}

function mappingOf(fields: readonly FieldMapping[], columns: ReadonlySet<string>): InspectedField[] {
  return fields.map((f) => ({
    field: f.field,
    column: f.columns.find((c) => columns.has(c)) ?? null,
    required: f.required,
    aliases: f.columns,
    ...(f.note ? { note: f.note } : {}),
  }));
}

async function inspectSource(source: BenchmarkSource, opts: LoadOptions): Promise<Inspection> {
  const { benchmark } = source;
  const files: InspectedFile[] = [];
  const columns = new Set<string>();
  const splits: Record<string, { rows: number; tasks: number }> = {};
  // Few-shot prompts draw from the pool: keep the tasks of a scorer that draws examples; others keep only the first.
  const pool: Task[] = [];
  let first: Task | undefined;
  let tasks = 0;
  let error: string | null = null;
  for (const { ref, split } of await sourceRefs(source, opts)) {
    const rows = await openRows(ref, { cacheDir: opts.cacheDir, env: opts.env ?? process.env });
    const kind = fileKindOf(ref);
    const file: InspectedFile = { source: rows.label, format: rows.format, gzip: kind?.gzip ?? false, split: split ?? null, rows: 0, columns: [] };
    files.push(file);
    const seen = new Set<string>();
    try {
      for await (const { row, line, file: label } of rows.rows()) {
        file.rows++;
        for (const key of Object.keys(row)) seen.add(key);
        const parsed = benchmark.parseRow(row, { file: label, line });
        const rowSplit = split !== undefined && (row.split === undefined || row.split === null || row.split === '') ? split : undefined;
        for (const task of parsed) {
          const t = rowSplit ? { ...task, split: rowSplit } : task;
          if (opts.split === undefined || t.split === opts.split) first ??= t;
          tasks++;
          const s = (splits[t.split] ??= { rows: 0, tasks: 0 });
          s.tasks++;
          if (scorerOf(t).fewShotPool) pool.push(t);
        }
        const rowSplitName = parsed[0] ? (rowSplit ?? parsed[0].split) : undefined;
        if (rowSplitName) (splits[rowSplitName] ??= { rows: 0, tasks: 0 }).rows++;
      }
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      error = err.message;
    }
    file.columns = [...seen];
    for (const c of seen) columns.add(c);
    if (error) break;
  }
  // As `run` does: a split the source does not hold is bad input, not an empty inspection.
  if (opts.split !== undefined && error === null && splits[opts.split] === undefined) {
    throw new InputError(`${source.spec}: no task in split "${opts.split}" (splits: ${Object.keys(splits).sort().join(', ') || 'none'})`, { field: 'split' });
  }
  const firstTask: FirstTask | null = first
    ? (() => {
        const prompt = benchmark.buildPrompt(first, {
          pool: pool.length > 0 ? pool : [first],
          ...(benchmark.defaults.language ? { language: benchmark.defaults.language } : {}),
        });
        return {
          id: first.id,
          split: first.split,
          prompt: {
            style: prompt.style,
            completion: prompt.completion ?? null,
            messages: [...(prompt.system ? [{ role: 'system', content: prompt.system }] : []), ...prompt.messages],
          },
          tests: testSummary(benchmark, first),
        };
      })()
    : null;
  return {
    benchmark: benchmark.id,
    title: benchmark.title,
    spec: source.spec,
    scorer: benchmark.scorer,
    protocol: benchmark.protocol,
    files,
    mapping: mappingOf(benchmark.fields, columns),
    splits,
    tasks,
    error,
    first_task: firstTask,
  };
}

/** Inspects every source `spec` names (`sample` names several), bound to the chosen protocol. */
export async function inspectBenchmark(spec: string, choice: ProtocolChoice, opts: LoadOptions): Promise<Inspection[]> {
  const out: Inspection[] = [];
  for (const source of parseBenchmarkSpec(spec, choice)) out.push(await inspectSource(source, opts));
  return out;
}
