/**
 * The `replay:<file.jsonl>` provider: plays back recorded samples (MXEval / human-eval
 * sample files: `{"task_id", "completion", "language"?, "sample"?}` per line). Several lines
 * for one task are several samples, in file order unless `sample` says otherwise.
 */
import { InputError } from '../errors.ts';
import { LANGUAGE_SPECS, languageIdOf } from '../languages/index.ts';
import { sampleLines } from './sample-lines.ts';
import type { Generation, GenerateRequest, Provider } from './provider.ts';
import type { ProviderKind } from './provider-kind.ts';

/** `-m replay:<file.jsonl>`: free recorded samples, read through the host (a local file, an s3:// object in the cloud). */
export const replay: ProviderKind = {
  scheme: 'replay',
  usage: 'replay:<file.jsonl>',
  cloudUsage: 'replay:s3://…',
  description: 'recorded samples: {"task_id", "completion", "language"?, "sample"?} per line',
  argument: true,
  billed: false,
  answersWithReference: false,
  iam: [],
  checkCloud(rest) {
    if (!rest.startsWith('s3://'))
      throw new InputError('a replay file must be an s3:// object for the deployed pipeline (replay:s3://<bucket>/<key>)', { field: 'model' });
  },
  async create(path, ctx) {
    if (!path) throw new InputError('replay: needs a file, e.g. replay:answers.jsonl', { field: 'model' });
    return replayProvider(ctx.spec, path, await ctx.readText(path));
  },
};

export interface ReplayLine {
  taskId: string;
  completion: string;
  language?: string;
  sample?: number;
  line: number;
}

/** Parses replay lines; every error names the file, line and field. */
export function parseReplay(text: string, file: string): ReplayLine[] {
  return sampleLines(text, file).map(({ row: r, line, taskId, sample }) => {
    if (typeof r.completion !== 'string') throw new InputError('must be a string', { file, line, field: 'completion' });
    if (r.language !== undefined && typeof r.language !== 'string') throw new InputError('must be a string', { file, line, field: 'language' });
    // Spellings as datasets write them (`C`, `C++`, `Python3`, `js`) name the language's id.
    const language = typeof r.language === 'string' ? languageIdOf(r.language) : undefined;
    if (typeof r.language === 'string' && language === undefined) {
      throw new InputError(`names no language polyeval runs: "${r.language}" (languages: ${LANGUAGE_SPECS.map((l) => l.id).join(', ')})`, {
        file,
        line,
        field: 'language',
      });
    }
    const entry: ReplayLine = { taskId, completion: r.completion, line };
    if (language !== undefined) entry.language = language;
    if (sample !== undefined) entry.sample = sample;
    return entry;
  });
}

/**
 * Groups sample lines by task and numbers them: explicit `sample` indexes first (a duplicate
 * is an InputError naming the line), the rest in file order after them. Each task's list
 * comes back sorted by sample.
 */
export function numberSamples<T extends { taskId: string; sample?: number; line: number }>(lines: readonly T[], file: string): Map<string, T[]> {
  const byTask = new Map<string, T[]>();
  for (const l of lines) {
    const list = byTask.get(l.taskId) ?? [];
    list.push(l);
    byTask.set(l.taskId, list);
  }
  for (const [taskId, list] of byTask) {
    const explicit = list.filter((l) => l.sample !== undefined);
    const seen = new Set<number>();
    for (const l of explicit) {
      if (seen.has(l.sample as number)) throw new InputError(`duplicate sample ${l.sample} for task ${taskId}`, { file, line: l.line, field: 'sample' });
      seen.add(l.sample as number);
    }
    // Explicit indexes first, the rest in file order after them.
    let next = 0;
    for (const l of list) {
      if (l.sample !== undefined) continue;
      while (seen.has(next)) next++;
      l.sample = next;
      seen.add(next);
    }
    list.sort((a, b) => (a.sample ?? 0) - (b.sample ?? 0));
  }
  return byTask;
}

export function replayProvider(spec: string, file: string, text: string): Provider {
  const lines = parseReplay(text, file);
  const byTask = numberSamples(lines, file);
  return {
    id: spec,
    kind: 'replay',
    model: `replay:${file.split('/').pop() ?? file}`,
    concurrency: 64,
    async prepare(taskIds: ReadonlySet<string>): Promise<void> {
      for (const l of lines) {
        if (!taskIds.has(l.taskId)) throw new InputError(`unknown task id "${l.taskId}"`, { file, line: l.line, field: 'task_id' });
      }
    },
    samplesFor: (taskId) => byTask.get(taskId)?.length,
    languageFor: (taskId: string, sample: number) => byTask.get(taskId)?.find((l) => l.sample === sample)?.language,
    async generate(req: GenerateRequest): Promise<Generation> {
      const hit = byTask.get(req.taskId)?.find((l) => l.sample === req.sample);
      if (!hit) throw new InputError(`has no sample ${req.sample} for task ${req.taskId}`, { file });
      return { text: hit.completion, usage: { promptTokens: 0, completionTokens: 0 }, latencyMs: 0, attempts: 1 };
    },
  };
}
