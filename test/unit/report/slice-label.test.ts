/** How a slice reads in the report: every dimension's value shown, a compound slice included (RoCode's human baseline per difficulty). */
import { describe, expect, it } from 'vitest';
import { sliceLabel } from '#core/html/escape.ts';
import { codeSwitchingSection } from '#core/benchmarks/code-switching-report.ts';
import type { MetricRow } from '#core/types.ts';

const row = (metric: string, slice: string, value: number): MetricRow => ({
  run_id: 'r',
  benchmark: 'rocode',
  model: 'm',
  metric,
  slice,
  value,
  ci_low: value,
  ci_high: value,
  n: 3,
  reason: null,
});

describe('sliceLabel', () => {
  it.each([
    ['all', 'all tasks'],
    ['language=cpp', 'cpp'],
    ['difficulty=easy', 'difficulty easy'],
    ['language=c+cpp,difficulty=easy', 'c+cpp · difficulty easy'],
    ['subtask=abstractness', 'abstractness'],
  ])('%s reads %s', (slice, label) => {
    expect(sliceLabel(slice)).toBe(label);
  });
});

describe("RoCode's code-switching section", () => {
  it('has a row per program set and slice, each naming its difficulty, and three value columns', () => {
    const html = codeSwitchingSection([
      row('code_switching_human', 'language=c+cpp', 0.1),
      row('code_switching_functions_human', 'language=c+cpp,difficulty=easy', 0.09),
      row('code_switching_variables_human', 'language=c+cpp,difficulty=hard', 0.14),
      row('code_switching', 'language=cpp', 0.2),
    ]);
    expect(html).toContain('<td>c+cpp · difficulty easy</td>');
    expect(html).toContain('<td>c+cpp · difficulty hard</td>');
    expect(html).not.toContain(',difficulty');
    expect(html?.match(/<th class="num">/g)).toHaveLength(3);
  });

  it('is left out when the run has no code-switching rows', () => {
    expect(codeSwitchingSection([])).toBeNull();
  });
});
