/** Terminal views of a run's results. */
import type { LocalRunResult } from '#app/local-run.ts';
import type { MetricValue } from '#core/run/aggregate.ts';
import { fmtValue, table } from './format.ts';

export function metricsTable(metrics: Record<string, MetricValue>): string {
  const rows = Object.entries(metrics).map(([key, m]) => {
    const [metric, ...slice] = key.split('/');
    return {
      metric,
      slice: slice.join('/') || 'all',
      value: fmtValue(m.value),
      '95% CI': m.value === null ? '' : `[${fmtValue(m.ci_low)}, ${fmtValue(m.ci_high)}]`,
      n: m.n,
      note: m.reason ? `absent: ${m.reason}` : '',
    };
  });
  return table(rows, ['metric', 'slice', 'value', '95% CI', 'n', 'note']);
}

export function printRunResult(r: LocalRunResult, out: NodeJS.WritableStream = process.stdout): void {
  if (r.status === 'stopped') {
    out.write(`\n${r.benchmark} · ${r.model} · run ${r.run_id} STOPPED after ${r.recorded}/${r.items} items: ${r.reason}\n`);
    return;
  }
  const verdicts = Object.entries(r.verdicts).map(([v, c]) => `${v} ${c}`).join(' · ');
  out.write(`\n${r.benchmark} · ${r.model} · run ${r.run_id} · n=${r.n} · ${r.items} samples · ${verdicts}\n`);
  if (r.likert_mode) out.write(`likert mode: ${r.likert_mode}\n`);
  out.write(`${metricsTable(r.metrics)}\n`);
  out.write(`report: ${r.report}\n`);
}
