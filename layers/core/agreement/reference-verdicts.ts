/**
 * Another harness's per-sample verdicts, as MXEval and human-eval write them: JSON lines with
 * `task_id` and `passed` (MXEval 1.x `*_results.jsonl`, human-eval the same), one line per
 * sample, the samples of a task in order. Also read: `mxeval_passed` (sample files that
 * carry MXEval's verdict beside the completion) and, without a boolean, human-eval's
 * `result` string (`"passed"`, `"failed: …"`, `"timed out"`; only `"passed"` passes).
 * MXEval's own `result` is the program's stderr for compiled languages, hence `passed` wins.
 */
import { InputError } from '../errors.ts';
import { numberSamples } from '../models/index.ts';
import { sampleLines } from '../models/index.ts';

/** One sample's verdict in the other harness's file. */
export interface ReferenceVerdict {
  taskId: string;
  /** The sample's index within its task (explicit `sample`, else its order in the file). */
  sample?: number;
  passed: boolean;
  kind?: string;
  language?: string;
  /** 1-based line in the file. */
  line: number;
}

function optionalString(r: Record<string, unknown>, field: string, file: string, line: number): string | undefined {
  const v = r[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new InputError('must be a string', { file, line, field });
  return v;
}

function verdictOf(r: Record<string, unknown>, file: string, line: number): boolean {
  for (const field of ['passed', 'mxeval_passed']) {
    if (r[field] === undefined) continue;
    if (typeof r[field] !== 'boolean') throw new InputError(`must be true or false, got ${JSON.stringify(r[field])}`, { file, line, field });
    return r[field] as boolean;
  }
  if (r.result !== undefined) {
    if (typeof r.result !== 'string') throw new InputError('must be a string ("passed", "failed: …", "timed out")', { file, line, field: 'result' });
    return r.result === 'passed';
  }
  throw new InputError('is missing (a results line needs "passed": true|false, or a human-eval "result")', { file, line, field: 'passed' });
}

/**
 * Parses a results file; every error names the file, line and field.
 * @example
 * const refs = parseReferenceVerdicts('{"task_id": "MBKP/1", "passed": true}\n', 'samples.jsonl_results.jsonl');
 */
export function parseReferenceVerdicts(text: string, file: string): ReferenceVerdict[] {
  const out = sampleLines(text, file).map(({ row: r, line, taskId, sample }) => {
    const entry: ReferenceVerdict = { taskId, passed: verdictOf(r, file, line), line };
    const kind = optionalString(r, 'kind', file, line);
    const language = optionalString(r, 'language', file, line);
    if (kind !== undefined) entry.kind = kind;
    if (language !== undefined) entry.language = language;
    if (sample !== undefined) entry.sample = sample;
    return entry;
  });
  if (out.length === 0) throw new InputError('has no results lines', { file });
  numberSamples(out, file);
  return out;
}
