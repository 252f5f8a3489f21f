/**
 * A benchmark's own report section takes over some of its metrics; none of the metrics it
 * computes may then vanish from the page (ABRICOT's `pearson_subtask_diff` is shown by no
 * section of its own: the generic table lists it).
 */
import { describe, expect, it } from 'vitest';
import { BENCHMARKS } from '#core/benchmarks/registry.ts';
import { renderReport } from '#core/report/html.ts';
import type { MetricRow } from '#core/types.ts';
import { syntheticRun } from '../../../sim/synthetic-report.ts';

const row = (metric: string, slice: string): MetricRow => ({
  run_id: 'synth',
  benchmark: 'b',
  model: 'm',
  metric,
  slice,
  value: 0.25,
  ci_low: 0.125,
  ci_high: 0.5,
  n: 8,
});

describe("a benchmark's own report section", () => {
  const withSection = BENCHMARKS.filter((b) => b.extraMetrics?.report !== undefined);

  it('exists for ABRICOT and RoCode', () => {
    expect(withSection.map((b) => b.id).sort()).toEqual(['abricot', 'rocode']);
  });

  it.each(withSection.map((b) => [b.id, b] as const))('%s: every metric its section does not show is in the generic metrics table', (_id, bench) => {
    const extra = bench.extraMetrics!;
    const shown = new Set(extra.reportIds ?? extra.ids);
    const others = extra.ids.filter((id) => !shown.has(id));
    const base = syntheticRun.manifest();
    const manifest = { ...base, benchmark: { ...base.benchmark, id: bench.id, scorer: bench.scorer } };
    const metrics = extra.ids.flatMap((id) => [row(id, 'all'), row(id, 'x=1')]);
    const html = renderReport({ manifest, metrics, docs: [], summary: { items: 0, verdicts: {} } });
    const grid = html.slice(html.indexOf('id="metrics-section"'), html.indexOf('</section>', html.indexOf('id="metrics-section"')));
    for (const id of others) expect(grid, id).toContain(id);
  });

  it("ABRICOT's report lists the subtask contrast, which its words-and-domains section does not show", () => {
    const base = syntheticRun.manifest();
    const manifest = { ...base, benchmark: { ...base.benchmark, id: 'abricot', scorer: 'likert' as const } };
    const metrics = [
      row('pearson', 'subtask=abstractness'),
      row('pearson', 'subtask=inclusiveness'),
      row('pearson', 'all'),
      row('pearson_subtask_diff', 'contrast=inclusiveness-abstractness'),
    ];
    const html = renderReport({ manifest, metrics, docs: [], summary: { items: 0, verdicts: {} } });
    expect(html).toContain('pearson_subtask_diff');
  });
});
