/**
 * Storage keys (DESIGN §5) — identical on disk and in S3. Task ids may contain `/`;
 * each path segment is kept readable but made safe.
 */
import { InputError } from '../errors.ts';

/** Keeps letters, digits and `._-`; escapes the rest as `~XX` (reversible, no `/` inside a segment). */
export function safeSegment(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, (c) => `~${c.codePointAt(0)?.toString(16).padStart(2, '0')}~`);
}

/**
 * A run id as the one path segment it is in `runs/<run_id>/…` and `reports/<run_id>.html`.
 * A user's `<run-id>` argument that is not one (`../x`, `a/b`, empty) names no run: InputError.
 */
export function runSegment(runId: string): string {
  if (!runId || runId === '.' || runId === '..' || /[/\\\0]/.test(runId)) {
    throw new InputError(`no run "${runId}": a run id is one name such as rocode-20261130T120000Z-1a2b3c (see: polyeval list runs)`, { field: 'run' });
  }
  return runId;
}

export const keys = {
  manifest: (runId: string) => `runs/${runSegment(runId)}/manifest.json`,
  summary: (runId: string) => `runs/${runSegment(runId)}/summary.json`,
  itemsPrefix: (runId: string) => `runs/${runSegment(runId)}/items/`,
  item: (runId: string, taskId: string, sample: number) => `runs/${runSegment(runId)}/items/${safeSegment(taskId)}/${sample}.json`,
  recordsPart: (benchmark: string, runId: string, part = 0) =>
    `results/records/benchmark=${safeSegment(benchmark)}/run_id=${safeSegment(runId)}/part-${String(part).padStart(5, '0')}.parquet`,
  metrics: (benchmark: string, runId: string) => `results/metrics/benchmark=${safeSegment(benchmark)}/run_id=${safeSegment(runId)}/metrics.parquet`,
  report: (runId: string) => `reports/${runSegment(runId)}.html`,
};

/** Deterministic work item id `<run>/<task>/<sample>`. */
export function itemId(runId: string, taskId: string, sample: number): string {
  return `${runId}/${taskId}/${sample}`;
}
