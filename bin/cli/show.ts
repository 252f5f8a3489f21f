/** Terminal views of a run's results. */
import type { LocalRunResult } from '#app/local-run.ts';
import type { MetricValue } from '#core/run/aggregate.ts';
import { fmtValue, table } from './format.ts';

/**
 * The metrics as a terminal table. An absent value on a slice repeats the reason of the
 * whole-run row (e.g. pass@10 with n < 10), so those rows are summarised in one line.
 */
export function metricsTable(metrics: Record<string, MetricValue>): string {
  const entries = Object.entries(metrics);
  const shown = entries.filter(([key, m]) => m.value !== null || !key.includes('/'));
  const hidden = entries.length - shown.length;
  const rows = shown.map(([key, m]) => {
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
  const out = table(rows, ['metric', 'slice', 'value', '95% CI', 'n', 'note']);
  return hidden ? `${out}\n(${hidden} absent per-slice values not shown: see the report or --json)` : out;
}

export function printRunResult(r: LocalRunResult, out: NodeJS.WritableStream = process.stdout): void {
  if (r.status === 'stopped') {
    out.write(`\n${r.benchmark} · ${r.model} · run ${r.run_id} STOPPED after ${r.recorded}/${r.items} items: ${r.reason}\n`);
    return;
  }
  const verdicts = Object.entries(r.verdicts).map(([v, c]) => `${v} ${c}`).join(' · ');
  out.write(`\n${r.benchmark} · ${r.model} · run ${r.run_id} · n=${r.n} · ${r.items} samples · ${verdicts}\n`);
  if (r.protocol) {
    const overrides = Object.entries(r.protocol.overrides).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    out.write(`protocol: ${r.protocol.name} (headline ${r.protocol.settings.headline}${overrides.length ? `; overridden: ${overrides.join(', ')}` : ''})\n`);
  }
  if (r.likert_mode) out.write(`likert mode: ${r.likert_mode}\n`);
  out.write(`${metricsTable(r.metrics)}\n`);
  out.write(`report: ${r.report}\n`);
}
