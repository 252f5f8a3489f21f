/**
 * RoCode's own report section: its code-switching shares (code-switching-rows.ts) as one
 * compact table — a row per program set and slice (the generated code, the reference
 * solutions, the human C/C++ baseline; each pooled and per difficulty), a column per kind of
 * identifier. Three value columns keep it inside a 1280 px page, where one column per metric
 * id in the generic metrics table did not.
 */
import { escapeHtml, metricCell, sliceLabel } from '../html/index.ts';
import type { MetricRow } from '../types.ts';

const KIND_COLUMNS: readonly { metric: string; label: string }[] = [
  { metric: 'code_switching', label: 'identifiers' },
  { metric: 'code_switching_functions', label: 'function names' },
  { metric: 'code_switching_variables', label: 'variable names' },
];

const SETS: readonly { suffix: string; label: string }[] = [
  { suffix: '', label: 'generated code' },
  { suffix: '_reference', label: 'reference solutions' },
  { suffix: '_human', label: 'human C/C++ solutions' },
];

/**
 * The section's HTML, or null when the run has no code-switching rows.
 * @example
 * codeSwitchingSection([{ metric: 'code_switching_human', slice: 'language=c+cpp,difficulty=easy', value: 0.1, … }], []);
 * // a row "human C/C++ solutions | c+cpp · difficulty easy | 0.100 …"
 */
export function codeSwitchingSection(metrics: readonly MetricRow[]): string | null {
  const body = SETS.flatMap((set) => {
    const rows = metrics.filter((r) => KIND_COLUMNS.some((k) => r.metric === `${k.metric}${set.suffix}`));
    const slices = [...new Set(rows.map((r) => r.slice))].sort((a, b) => a.length - b.length || a.localeCompare(b));
    return slices.map((slice, i) => {
      const cells = KIND_COLUMNS.map((k) => metricCell(rows.find((r) => r.slice === slice && r.metric === `${k.metric}${set.suffix}`))).join('');
      const head = i === 0 ? `<th rowspan="${slices.length}">${escapeHtml(set.label)}</th>` : '';
      return `<tr>${head}<td>${escapeHtml(sliceLabel(slice, 'programs'))}</td>${cells}</tr>`;
    });
  });
  if (body.length === 0) return null;
  const head = `<tr><th>programs</th><th>slice</th>${KIND_COLUMNS.map((k) => `<th class="num">${escapeHtml(k.label)}</th>`).join('')}</tr>`;
  return `<section id="code-switching"><h2>Code-switching</h2>
<p>The share of declared identifiers that contain a Romanian word (the RoCode paper's Figure 2), with 95% intervals resampling programs.</p>
<table id="code-switching-table" class="grid"><thead>${head}</thead><tbody>${body.join('')}</tbody></table>
</section>`;
}
