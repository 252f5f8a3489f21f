/**
 * Storage keys (DESIGN §5) — identical on disk and in S3. Task ids may contain `/`;
 * each path segment is kept readable but made safe.
 */

/** Keeps letters, digits and `._-`; escapes the rest as `~XX` (reversible, no `/` inside a segment). */
export function safeSegment(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, (c) => `~${c.codePointAt(0)?.toString(16).padStart(2, '0')}~`);
}

export const keys = {
  manifest: (runId: string) => `runs/${runId}/manifest.json`,
  summary: (runId: string) => `runs/${runId}/summary.json`,
  itemsPrefix: (runId: string) => `runs/${runId}/items/`,
  item: (runId: string, taskId: string, sample: number) => `runs/${runId}/items/${safeSegment(taskId)}/${sample}.json`,
  recordsPart: (benchmark: string, runId: string, part = 0) =>
    `results/records/benchmark=${safeSegment(benchmark)}/run_id=${safeSegment(runId)}/part-${String(part).padStart(5, '0')}.parquet`,
  metrics: (benchmark: string, runId: string) => `results/metrics/benchmark=${safeSegment(benchmark)}/run_id=${safeSegment(runId)}/metrics.parquet`,
  report: (runId: string) => `reports/${runId}.html`,
};

/** Deterministic work item id `<run>/<task>/<sample>`. */
export function itemId(runId: string, taskId: string, sample: number): string {
  return `${runId}/${taskId}/${sample}`;
}
