/**
 * The HTML report of a run: one self-contained file (inline CSS, SVG and one script, no
 * CDN — users open it offline) that leads with the answer. In order: the headline metric of
 * the run's protocol with its 95% interval (one card per subtask or language) beside the
 * verdict counts; the metrics as one compact table (slices × metrics, what could not be
 * computed said once); the charts; the sample browser (`sample-browser.ts`; without scripts,
 * the failing samples as a table); the manifest, listing only what the run used. All of it is
 * static HTML; the sample data and the page's one script come after it, at the end of the
 * body, so a 2,000-item run's page paints its answer before any sample data is read.
 *
 * The page is a list of sections ({@link REPORT_SECTIONS}); a benchmark's own views slot
 * in by adding a section to the list passed to {@link renderReport}.
 */
import type { ItemDocument } from '../run/index.ts';
import type { Manifest } from '../run/index.ts';
import { scorerByKind } from '../scorers/index.ts';
import type { MetricRow, RunRecord, Task, Verdict } from '../types.ts';
import { escapeHtml } from '../html/index.ts';
import { headlineCards, headlineSection, runHeadlineMetric } from './headline-cards.ts';
import { BENCHMARK_REGISTRY } from '../benchmarks/index.ts';
import type { ExtraMetrics } from '../benchmarks/index.ts';
import { metricGridHtml } from './metric-grid.ts';
import { manifestTable } from './report-manifest.ts';
import { BROWSER_CSS, sampleBrowser, sampleBrowserData } from './sample-browser.ts';

export { escapeHtml } from '../html/index.ts';

export interface ReportInput {
  manifest: Manifest;
  metrics: readonly MetricRow[];
  docs: readonly ItemDocument[];
  summary: { items: number; verdicts: Partial<Record<Verdict, number>> };
}

/** What every section may read, computed once. */
export interface ReportContext extends ReportInput {
  records: readonly RunRecord[];
  /** The headline metric of the run's protocol. */
  headline: string;
  /** What a metric's interval resamples: `tasks` (code) or `items` (Likert). */
  unit: string;
  /** The languages the run's samples ran in. */
  languages: ReadonlySet<string>;
}

/** One part of the page: `render` returns its body, or null to leave it out. */
export interface ReportSection {
  id: string;
  /** Its heading; none for the headline, which is the page's opening. */
  title?: string;
  render(ctx: ReportContext): string | null;
  /** What it needs at the end of the body (data, its script), after every section has painted. */
  tail?(ctx: ReportContext): string | null;
}

function failures(docs: readonly ItemDocument[]): string {
  const failed = docs.filter((d) => d.record.verdict !== 'OK').slice(0, 100);
  if (failed.length === 0) return '<p>Every sample passed.</p>';
  const rows = failed
    .map(
      (d) =>
        `<tr><td>${escapeHtml(d.record.task_id)}</td><td>${d.record.sample}</td><td>${escapeHtml(d.record.language ?? '')}</td><td class="v-${d.record.verdict}">${d.record.verdict}</td><td>${d.record.tests_passed}/${d.record.tests_total}</td><td><code>${escapeHtml((d.record.error ?? '').slice(0, 200))}</code></td></tr>`,
    )
    .join('');
  return `<table><thead><tr><th>task</th><th>sample</th><th>language</th><th>verdict</th><th>tests</th><th>detail</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The run's benchmark's own metrics, when it shows them in a section of its own (absent for a benchmark not registered: a test's toy). */
function ownSection(ctx: ReportContext): ExtraMetrics<Task> | undefined {
  const own = BENCHMARK_REGISTRY.find(ctx.manifest.benchmark.id)?.extraMetrics;
  return own?.report ? own : undefined;
}

/** The metric ids a benchmark's own section shows. */
const shownIds = (own: ExtraMetrics<Task> | undefined): readonly string[] => own?.reportIds ?? own?.ids ?? [];

/** The rows the generic metrics table shows: all but those the benchmark's own section shows. */
function gridRows(ctx: ReportContext): MetricRow[] {
  const owned = new Set(shownIds(ownSection(ctx)));
  return ctx.metrics.filter((r) => !owned.has(r.metric));
}

/** The sections of a run's report, in page order. */
export const REPORT_SECTIONS: readonly ReportSection[] = [
  { id: 'answer', render: (ctx) => headlineSection(headlineCards(ctx.manifest, ctx.metrics), ctx.summary, ctx.unit) },
  { id: 'metrics-section', title: 'Metrics by slice', render: (ctx) => metricGridHtml(gridRows(ctx), ctx.headline, ctx.unit) },
  { id: 'charts', title: 'Charts', render: (ctx) => scorerByKind(ctx.manifest.benchmark.scorer).charts(ctx.records) },
  // The benchmark's own section, with its own <section> and heading (ABRICOT's words and domains, RoCode's code-switching).
  {
    id: 'benchmark-section',
    render: (ctx) => {
      const own = ownSection(ctx);
      const ids = new Set(shownIds(own));
      return (
        own?.report?.(
          ctx.metrics.filter((r) => ids.has(r.metric)),
          ctx.records,
        ) ?? null
      );
    },
  },
  {
    id: 'samples',
    title: 'Samples',
    render: (ctx) => `${sampleBrowser()}\n<noscript><h3>Samples that did not pass</h3>${failures(ctx.docs)}</noscript>`,
    tail: (ctx) => sampleBrowserData(ctx.docs),
  },
  { id: 'manifest-section', title: 'Manifest', render: (ctx) => manifestTable(ctx.manifest, ctx.languages) },
];

const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:1.2rem auto;max-width:1100px;color:#222;padding:0 1rem}
h1{font-size:1.35rem;margin:.2rem 0}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd}.sub{color:#555;margin:.1rem 0 .8rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{padding:.25rem .6rem;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}.kv th{color:#555;font-weight:500}
.cards{display:flex;flex-wrap:wrap;gap:.8rem;margin:.5rem 0 1rem}.card{border:1px solid #cdd;border-radius:8px;padding:.6rem .9rem;min-width:14rem;background:#fbfdfd}
.card .label{color:#445;font-weight:600}.card .value{font-size:2rem;font-weight:700;font-variant-numeric:tabular-nums;line-height:1.2}.card .ci{color:#556;font-size:13px}
.card.verdicts{background:#fff}.card .counts span{display:inline-block;margin-right:.7rem}.hbar{display:block;margin-top:4px}
.grid th{white-space:nowrap}.grid .ci{display:block;color:#778;font-size:11px}.grid th.hl{color:#1f4e5f}.grid caption{text-align:left;color:#555;font-weight:600}
.absent{color:#a55;font-style:italic}.absent-note{color:#a55;font-size:13px}.muted{color:#999}
figure{display:inline-block;margin:.5rem 1.5rem .5rem 0}figcaption{font-weight:600;margin-bottom:.3rem}
.v-OK{color:#272}.v-WA,.v-RE{color:#a33}.v-CE{color:#a60}.v-TLE,.v-MLE,.v-OLE{color:#639}.v-SE{color:#777}
${BROWSER_CSS}`;

/**
 * The page.
 * @param sections the parts in page order (default {@link REPORT_SECTIONS}).
 */
export function renderReport(input: ReportInput, sections: readonly ReportSection[] = REPORT_SECTIONS): string {
  const { manifest } = input;
  const records = input.docs.map((d) => d.record);
  const ctx: ReportContext = {
    ...input,
    records,
    headline: runHeadlineMetric(manifest),
    unit: scorerByKind(manifest.benchmark.scorer).unit,
    languages: new Set(records.flatMap((r) => (r.language ? [r.language] : []))),
  };
  const protocol = manifest.protocol ? ` · protocol ${manifest.protocol.name}` : '';
  const body = sections
    .map((s) => {
      const html = s.render(ctx);
      if (html === null) return '';
      return s.title ? `<section id="${s.id}"><h2>${escapeHtml(s.title)}</h2>${html}</section>` : html;
    })
    .join('\n');
  // Data and scripts come last, so the sections above paint before any of it is read.
  const tail = sections.map((s) => s.tail?.(ctx) ?? '').filter(Boolean);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>polyeval · ${escapeHtml(manifest.run_id)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${CSS}</style></head>
<body>
<h1>${escapeHtml(manifest.benchmark.title)} · ${escapeHtml(manifest.model.spec)}</h1>
<p class="sub">run ${escapeHtml(manifest.run_id)} · ${escapeHtml(manifest.benchmark.spec)}${manifest.language ? ` · ${escapeHtml(manifest.language)}` : ''}${escapeHtml(protocol)} · n = ${manifest.n} · ${input.summary.items} samples</p>
${body}
${tail.join('\n')}
</body></html>
`;
}
