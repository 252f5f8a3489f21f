/**
 * The report's charts, which each scorer names as its own (layers/core/scorers/): ABRICOT's
 * predicted-vs-gold grid per subtask, and for code benchmarks the verdict shares by language, difficulty and split (a dimension with one
 * value says nothing and is left out).
 */
import type { RunRecord, Verdict } from '../types.ts';
import { VERDICTS } from '../types.ts';
import { escapeHtml } from './escape.ts';
import { bubbleGrid, stackedBars, type Bar } from './svg.ts';

/** ABRICOT-style predicted-vs-gold grids, one per subtask (the likert scorer's charts). */
export function likertCharts(records: readonly RunRecord[]): string {
  const subtasks = [...new Set(records.map((r) => r.subtask ?? 'all'))].sort();
  return subtasks
    .map((subtask) => {
      const cells = new Map<string, number>();
      let unparsed = 0;
      for (const r of records.filter((x) => (x.subtask ?? 'all') === subtask)) {
        if (r.predicted === null || r.gold === null) {
          unparsed++;
          continue;
        }
        const key = `${r.gold},${r.predicted}`;
        cells.set(key, (cells.get(key) ?? 0) + 1);
      }
      const points = [...cells].map(([key, count]) => {
        const [gold, predicted] = key.split(',').map(Number);
        return { x: gold ?? 0, y: predicted ?? 0, count };
      });
      return `<figure><figcaption>${escapeHtml(subtask)}: predicted vs gold${unparsed ? ` (${unparsed} unparseable answers not shown)` : ''}</figcaption>${bubbleGrid(points, { xLabel: 'gold (1–5)', yLabel: 'predicted (1–5)' })}</figure>`;
    })
    .join('');
}

/** Verdict shares by language, difficulty and split (the code scorers' charts). */
export function verdictCharts(records: readonly RunRecord[]): string {
  const byDim = (dim: 'difficulty' | 'language' | 'split'): Bar[] => {
    const groups = new Map<string, Partial<Record<Verdict, number>>>();
    for (const r of records) {
      const key = r[dim] ?? '—';
      const g = groups.get(key) ?? {};
      g[r.verdict] = (g[r.verdict] ?? 0) + 1;
      groups.set(key, g);
    }
    return [...groups].sort(([a], [b]) => a.localeCompare(b)).map(([label, counts]) => ({ label, counts }));
  };
  const dims = (['language', 'difficulty', 'split'] as const).map((dim) => ({ dim, bars: byDim(dim) }));
  const telling = dims.filter((d) => d.bars.length > 1);
  return (telling.length > 0 ? telling : dims.slice(0, 1))
    .map(({ dim, bars }) => `<figure><figcaption>verdicts by ${dim}</figcaption>${stackedBars(bars, VERDICTS)}</figure>`)
    .join('');
}
