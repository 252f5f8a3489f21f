/**
 * The lines of an MXEval / human-eval style JSON Lines file (sample files, result files):
 * one object per line with a `task_id` and an optional `sample` index. Every error names
 * the file, line and field.
 */
import { InputError } from '../errors.ts';

/** One parsed line: its fields, its number (1-based), and the fields every such line has. */
export interface SampleLine {
  row: Record<string, unknown>;
  line: number;
  taskId: string;
  sample?: number;
}

/**
 * @example
 * sampleLines('{"task_id": "MBKP/1", "completion": "…"}\n', 'samples.jsonl') // [{ taskId: 'MBKP/1', line: 1, row: {…} }]
 * @throws InputError naming the file, line and field of the first bad line
 */
export function sampleLines(text: string, file: string): SampleLine[] {
  const out: SampleLine[] = [];
  text.split(/\r?\n/u).forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(raw);
    } catch (error) {
      throw new InputError(`is not valid JSON (${(error as Error).message})`, { file, line });
    }
    if (typeof row !== 'object' || row === null || Array.isArray(row)) throw new InputError('must be a JSON object', { file, line });
    const r = row as Record<string, unknown>;
    if (typeof r.task_id !== 'string' || r.task_id === '') throw new InputError('must be a non-empty string', { file, line, field: 'task_id' });
    if (r.sample !== undefined && !(Number.isInteger(r.sample) && (r.sample as number) >= 0))
      throw new InputError('must be a non-negative integer', { file, line, field: 'sample' });
    out.push({ row: r, line, taskId: r.task_id, ...(typeof r.sample === 'number' ? { sample: r.sample } : {}) });
  });
  return out;
}
