/** Terminal views of a run's results. */
import type { LocalRunResult } from '#app/local/run.ts';
import type { MetricValue } from '#core/report/index.ts';
import { headlineKeys } from '#core/benchmarks/index.ts';
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

/** `<benchmark> · <model> · run <id> · n=… · … samples · <verdict counts>`. */
export function runHeader(r: Extract<LocalRunResult, { status: 'completed' }>): string {
  const verdicts = Object.entries(r.verdicts)
    .map(([v, c]) => `${v} ${c}`)
    .join(' · ');
  return `${r.benchmark} · ${r.model} · run ${r.run_id} · n=${r.n} · ${r.items} samples · ${verdicts}`;
}

/**
 * Several runs: one line each as they are listed, then one summary table (and the path of
 * each report); `polyeval report <run-id>` shows a run's per-slice table.
 */
export function printRunsSummary(results: readonly LocalRunResult[], out: NodeJS.WritableStream = process.stdout): void {
  out.write('\n');
  for (const r of results)
    out.write(
      r.status === 'stopped'
        ? `${r.benchmark} · ${r.model} · run ${r.run_id} STOPPED after ${r.recorded}/${r.items} items: ${r.reason}\n`
        : `${runHeader(r)}\n`,
    );
  out.write(`\n${runsSummaryTable(results)}\n(per-slice metrics: polyeval report <run-id>, or the HTML report)\n`);
}

export function printRunResult(r: LocalRunResult, out: NodeJS.WritableStream = process.stdout): void {
  if (r.status === 'stopped') {
    out.write(`\n${r.benchmark} · ${r.model} · run ${r.run_id} STOPPED after ${r.recorded}/${r.items} items: ${r.reason}\n`);
    return;
  }
  out.write(`\n${runHeader(r)}\n`);
  if (r.protocol) {
    const overrides = Object.entries(r.protocol.overrides).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    out.write(`protocol: ${r.protocol.name} (headline ${r.protocol.settings.headline}${overrides.length ? `; overridden: ${overrides.join(', ')}` : ''})\n`);
  }
  if (r.likert_mode) out.write(`likert mode: ${r.likert_mode}${r.likert_scoring ? ` (${r.likert_scoring.method}: ${r.likert_scoring.reason})` : ''}\n`);
  for (const w of r.warnings ?? []) out.write(`warning: ${w}\n`);
  out.write(`${metricsTable(r.metrics)}\n`);
  out.write(`report: ${r.report}\n`);
}

/**
 * One line per run of a multi-run invocation (`-b sample`, a sweep): verdict counts and the
 * headline metric with its interval; per-slice detail stays in `report` and the HTML.
 */
export function runsSummaryTable(results: readonly LocalRunResult[]): string {
  const rows = results.flatMap((r) => {
    if (r.status === 'stopped')
      return [
        {
          suite: suiteName(r),
          model: r.model,
          items: `${r.recorded}/${r.items}`,
          verdicts: 'STOPPED',
          headline: r.reason,
          '95% CI': '',
          report: `resume: polyeval run --resume ${r.run_id}`,
        },
      ];
    // ABRICOT's headline is one correlation per subtask: one line each, the run's cells once.
    return headlineKeys(r.benchmark, r.protocol?.settings.headline).map((key, i) => {
      const m = r.metrics[key];
      const metric = {
        headline: `${key} ${fmtValue(m?.value)}`,
        '95% CI': m && m.value !== null ? `[${fmtValue(m.ci_low)}, ${fmtValue(m.ci_high)}]` : `absent: ${m?.reason ?? 'not computed'}`,
      };
      if (i > 0) return metric;
      return {
        suite: suiteName(r),
        model: r.model,
        items: r.items,
        verdicts: Object.entries(r.verdicts)
          .map(([v, c]) => `${v} ${c}`)
          .join(' · '),
        ...metric,
        report: r.report,
      };
    });
  });
  // Paths are never cut: the report column is what a person copies.
  return table(rows, ['suite', 'model', 'items', 'verdicts', 'headline', '95% CI', 'report'], { maxWidth: Infinity });
}

/** `rocode [cpp]` when the run fixed its language, else the benchmark id. */
function suiteName(r: { benchmark: string; language?: string | null }): string {
  return r.language ? `${r.benchmark} [${r.language}]` : r.benchmark;
}
