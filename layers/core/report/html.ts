/**
 * The HTML report of a run: one self-contained file (inline CSS, SVG and one script, no
 * CDN — users open it offline) with the manifest, the metrics with their intervals, the
 * charts (ABRICOT: predicted vs gold per subtask; code: verdicts per slice) and a browser
 * of every sample (`sample-browser.ts`; without scripts, the failing samples as a table).
 */
import type { ItemDocument } from '../run/engine.ts';
import type { Manifest } from '../run/manifest.ts';
import type { MetricRow, RunRecord, Verdict } from '../types.ts';
import { VERDICTS } from '../types.ts';
import { isWordRow, likertAnalysesSection } from './likert-analyses.ts';
import { BROWSER_CSS, sampleBrowser } from './sample-browser.ts';
import { bubbleGrid, stackedBars, type Bar } from './svg.ts';

export interface ReportInput {
  manifest: Manifest;
  metrics: readonly MetricRow[];
  docs: readonly ItemDocument[];
  summary: { items: number; verdicts: Partial<Record<Verdict, number>> };
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

const fmt = (v: number | null | undefined, digits = 3): string => (v === null || v === undefined ? '—' : v.toFixed(digits));

function protocolRow(p: NonNullable<Manifest['protocol']>): [string, string] {
  const overrides = Object.entries(p.overrides).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return ['protocol', `${p.name} · headline ${p.settings.headline} · prompt ${p.settings.promptStyle}${overrides.length ? ` · overridden: ${overrides.join(', ')}` : ' · no overrides'}`];
}

function manifestTable(m: Manifest): string {
  const rows: [string, string][] = [
    ['run', m.run_id],
    ['created', m.created_at],
    ['benchmark', `${m.benchmark.title} (${m.benchmark.id}, ${m.benchmark.spec})`],
    ['dataset', `${m.benchmark.source} · sha256 ${m.benchmark.sha256.slice(0, 16)}… · ${m.benchmark.tasks} tasks`],
    ['model', `${m.model.spec} (${m.model.kind})`],
    ...(m.protocol ? [protocolRow(m.protocol)] : []),
    ['samples per task', String(m.n)],
    ['parameters', `temperature ${m.params.temperature}, top_p ${m.params.topP}, max_tokens ${m.params.maxTokens}, stop ${JSON.stringify(m.params.stop)}, seed ${m.seed}`],
    ['split / limit / language', `${m.split ?? 'all'} / ${m.limit ?? 'none'} / ${m.language ?? 'per task'}`],
    ['time scale', String(m.time_scale)],
    ['code', `polyeval ${m.code.version}${m.code.revision ? ` @ ${m.code.revision.slice(0, 12)}${m.code.dirty ? ' (dirty)' : ''}` : ''}`],
  ];
  if (m.likert_mode) {
    const what = {
      likelihood: 'likelihood — the choice 1–5 with the highest log-likelihood',
      'next-token': 'next-token — the choice 1–5 with the highest next-token log-probability ("1" and " 1" merged; a choice outside the top-k gets the floor)',
      'digit-parse': 'digit-parse — the provider returns no log-probabilities; a strictly parsed digit, unparseable = wrong',
    }[m.likert_mode];
    const why = m.likert_scoring ? ` · method ${m.likert_scoring.method} · ${m.likert_scoring.reason}` : '';
    rows.push(['likert mode', `${what}${why}`]);
  }
  for (const w of m.warnings ?? []) rows.push(['adapted to the model', w]);
  for (const note of m.prompt_notes ?? []) rows.push(['prompt', note]);
  for (const t of m.toolchains) rows.push([`toolchain ${t.language}`, `${t.compiler ?? ''} ${t.version ?? ''} ${(t.flags ?? []).join(' ')}`.trim()]);
  return `<table class="kv">${rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>`;
}

function metricsTable(rows: readonly MetricRow[]): string {
  const body = rows
    .map((r) => {
      const bar =
        r.value !== null && r.ci_low !== null && r.ci_high !== null && r.value >= -1 && r.value <= 1
          ? `<svg width="130" height="10" role="img" aria-label="interval, -1 to 1"><line x1="65" x2="65" y1="0" y2="10" stroke="#ccc"/><rect x="${(65 + 60 * r.ci_low).toFixed(1)}" y="3" width="${Math.max(1, 60 * (r.ci_high - r.ci_low)).toFixed(1)}" height="4" fill="#9bb"/><circle cx="${(65 + 60 * r.value).toFixed(1)}" cy="5" r="3" fill="#244"/></svg>`
          : '';
      return `<tr><td>${escapeHtml(r.metric)}</td><td>${escapeHtml(r.slice)}</td><td class="num">${fmt(r.value)}</td><td class="num">${r.value === null ? '' : `[${fmt(r.ci_low)}, ${fmt(r.ci_high)}]`}</td><td class="num">${r.n}</td><td>${bar}${r.reason ? `<span class="absent">absent: ${escapeHtml(r.reason)}</span>` : ''}</td></tr>`;
    })
    .join('');
  return `<table><thead><tr><th>metric</th><th>slice</th><th>value</th><th>95% CI</th><th>n</th><th></th></tr></thead><tbody>${body}</tbody></table>`;
}

function likertCharts(records: readonly RunRecord[]): string {
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

function verdictCharts(records: readonly RunRecord[]): string {
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
  return (['language', 'difficulty', 'split'] as const)
    .map((dim) => `<figure><figcaption>verdicts by ${dim}</figcaption>${stackedBars(byDim(dim), VERDICTS)}</figure>`)
    .join('');
}

function failures(docs: readonly ItemDocument[]): string {
  const failed = docs.filter((d) => d.record.verdict !== 'OK').slice(0, 100);
  if (failed.length === 0) return '<p>Every sample passed.</p>';
  const rows = failed
    .map((d) => `<tr><td>${escapeHtml(d.record.task_id)}</td><td>${d.record.sample}</td><td>${escapeHtml(d.record.language ?? '')}</td><td class="v-${d.record.verdict}">${d.record.verdict}</td><td>${d.record.tests_passed}/${d.record.tests_total}</td><td><code>${escapeHtml((d.record.error ?? '').slice(0, 200))}</code></td></tr>`)
    .join('');
  return `<table><thead><tr><th>task</th><th>sample</th><th>language</th><th>verdict</th><th>tests</th><th>detail</th></tr></thead><tbody>${rows}</tbody></table>`;
}

const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#222;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5rem 0}td,th{padding:.25rem .6rem;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
.num{text-align:right;font-variant-numeric:tabular-nums}.kv th{color:#555;font-weight:500}
.absent{color:#a55;font-style:italic}figure{display:inline-block;margin:.5rem 1.5rem .5rem 0}figcaption{font-weight:600;margin-bottom:.3rem}
.v-OK{color:#272}.v-WA,.v-RE{color:#a33}.v-CE{color:#a60}.v-TLE,.v-MLE,.v-OLE{color:#639}.v-SE{color:#777}
.verdicts span{display:inline-block;margin-right:1rem}
${BROWSER_CSS}`;

export function renderReport(input: ReportInput): string {
  const { manifest, metrics, docs, summary } = input;
  const records = docs.map((d) => d.record);
  const verdicts = VERDICTS.filter((v) => summary.verdicts[v])
    .map((v) => `<span class="v-${v}">${v} ${summary.verdicts[v]}</span>`)
    .join('');
  const charts = manifest.benchmark.scorer === 'likert' ? likertCharts(records) : verdictCharts(records);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>polyeval · ${escapeHtml(manifest.run_id)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${CSS}</style></head>
<body>
<h1>polyeval report · ${escapeHtml(manifest.benchmark.title)}</h1>
<p><strong>${escapeHtml(manifest.model.spec)}</strong> · ${summary.items} samples · <span class="verdicts">${verdicts}</span></p>
<h2>Metrics</h2>${metricsTable(metrics.filter((r) => !isWordRow(r)))}
<h2>Charts</h2>${charts}
${manifest.benchmark.scorer === 'likert' ? likertAnalysesSection(metrics, records) : ''}
<h2>Samples</h2>
${sampleBrowser(docs)}
<noscript><h3>Samples that did not pass</h3>${failures(docs)}</noscript>
<h2>Manifest</h2>${manifestTable(manifest)}
</body></html>
`;
}
