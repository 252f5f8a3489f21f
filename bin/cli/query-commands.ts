/**
 * `polyeval list`, `report`, `compare` and `query`: reading what runs recorded.
 */
import { Command, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { openHome, type Home } from '#app/local/home.ts';
import { noteIfNoData } from './home-note.ts';
import { PROVIDER_KINDS } from '#app/shared/create-provider.ts';
import { loadPriceTable } from '#providers/index.ts';
import { requireManifest } from '#app/local/run.ts';
import { InputError } from '#core/errors.ts';
import { compareRuns } from '#core/scorers/index.ts';
import { parseRunSummary, readItems, type RunSummaryDocument } from '#core/report/index.ts';
import { keys } from '#core/run/index.ts';
import { DuckDbResultsQuery } from '#local/index.ts';
import { csv, fmtValue, table, toJson } from './format.ts';
import { renderCompareHtml } from '#core/report/index.ts';
import { headlineKeys } from '#core/benchmarks/index.ts';
import { writeHtml } from './html-output.ts';
import { metricsTable } from './show.ts';
import { benchmarkListRows } from './list-benchmarks.ts';

function homeOf(command: Command): Home {
  return openHome(command.optsWithGlobals<{ home?: string }>().home);
}

export function listCommand(): Command {
  return new Command('list')
    .description('list runs, benchmarks or providers')
    .showHelpAfterError('(polyeval list takes one of: runs, benchmarks, providers — e.g. polyeval list runs)')
    .addArgument(new Command().createArgument('<what>', 'runs | benchmarks | providers').choices(['runs', 'benchmarks', 'providers']))
    .option('--json', 'print JSON')
    .option('--prices [file.json]', 'providers: the price table (shipped, or merged with a file) with as_of and source per model')
    .action(async (what: 'runs' | 'benchmarks' | 'providers', flags: { json?: boolean; prices?: string | boolean }, command: Command) => {
      let rows: Record<string, unknown>[];
      if (what === 'runs') {
        const home = homeOf(command);
        noteIfNoData(home);
        const runs = await home.ledger.listRuns();
        rows = runs.map((r) => ({
          run_id: r.runId,
          benchmark: r.benchmark,
          model: r.model,
          status: r.status,
          items: r.items,
          recorded: r.recorded,
          pending: Math.max(0, r.items - r.recorded),
          verdicts: Object.entries(r.verdicts)
            .map(([v, c]) => `${v}:${c}`)
            .join(' '),
          cost_usd: Number(r.costUsd.toFixed(6)),
          created_at: r.createdAt,
          ...(r.reason ? { reason: r.reason } : {}),
        }));
      } else if (what === 'benchmarks') {
        rows = benchmarkListRows(flags.json === true);
      } else if (flags.prices !== undefined) {
        const table = await loadPriceTable(typeof flags.prices === 'string' ? flags.prices : undefined);
        rows = Object.entries(table.models)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([model, p]) => ({
            model,
            input_per_mtok: p.input_per_mtok,
            output_per_mtok: p.output_per_mtok,
            batch_input_per_mtok: p.batch_input_per_mtok ?? null,
            batch_output_per_mtok: p.batch_output_per_mtok ?? null,
            as_of: p.as_of ?? table.as_of,
            source: p.source ?? table.source,
          }));
      } else {
        rows = PROVIDER_KINDS.map((p) => ({ provider: p.usage, description: p.description }));
      }
      process.stdout.write(flags.json ? `${toJson(rows)}\n` : `${table(rows)}\n`);
    });
}

/** The query in `--file`; a file that cannot be read is the user's (exit 2, naming it). */
function readSql(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(`cannot read the query: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { file, field: 'file' }, { cause: err });
  }
}

async function summaryOf(home: Home, runId: string): Promise<RunSummaryDocument> {
  const text = await home.store.getText(keys.summary(runId));
  if (!text) {
    const run = await home.ledger.getRun(runId);
    if (!run) throw new InputError(`no run "${runId}" in ${home.root} (see: polyeval list runs)`, { field: 'run' });
    throw new InputError(
      `run ${runId} has no results yet (status ${run.status}, ${run.recorded}/${run.items} items${run.reason ? `: ${run.reason}` : ''}); resume it with: polyeval run --resume ${runId}`,
      { field: 'run' },
    );
  }
  return parseRunSummary(text, home.store.locate(keys.summary(runId)));
}

export function reportCommand(): Command {
  return new Command('report')
    .description('print the metrics of a run and the path of its HTML report')
    .argument('<run-id>')
    .option('--json', 'print the run summary as JSON')
    .action(async (runId: string, flags: { json?: boolean }, command: Command) => {
      const home = homeOf(command);
      const summary = await summaryOf(home, runId);
      if (flags.json) {
        process.stdout.write(`${toJson(summary)}\n`);
        return;
      }
      const manifest = await requireManifest(home, runId);
      process.stdout.write(`${manifest.benchmark.title}\nrun ${runId} · ${manifest.model.spec} · n=${manifest.n} · ${summary.items} samples\n`);
      if (summary.likert_mode)
        process.stdout.write(
          `likert mode: ${summary.likert_mode}${summary.likert_scoring ? ` (${summary.likert_scoring.method}: ${summary.likert_scoring.reason})` : ''}\n`,
        );
      for (const w of summary.warnings ?? []) process.stdout.write(`warning: ${w}\n`);
      process.stdout.write(`${metricsTable(summary.metrics)}\nreport: ${home.store.locate(keys.report(runId))}\n`);
    });
}

export function compareCommand(): Command {
  return new Command('compare')
    .description('paired bootstrap difference (b − a) per metric between two runs of one benchmark')
    .argument('<run-a>')
    .argument('<run-b>')
    .option('--iterations <count>', 'bootstrap resamples', (v) => Number(v), 2000)
    .option('--json', 'print JSON')
    .addOption(
      new Option('--format <format>', 'table | json | html (a self-contained page with interval bars; prints its path)')
        .choices(['table', 'json', 'html'])
        .default('table'),
    )
    .option('-o, --output <file.html>', 'with --format html: where to write the page (default: <home>/store/reports/compare-<a>-vs-<b>.html)')
    .action(
      async (a: string, b: string, flags: { json?: boolean; iterations: number; format: 'table' | 'json' | 'html'; output?: string }, command: Command) => {
        const home = homeOf(command);
        const [ma, mb] = [await requireManifest(home, a), await requireManifest(home, b)];
        if (ma.benchmark.id !== mb.benchmark.id)
          throw new InputError(`runs are on different benchmarks (${ma.benchmark.id} vs ${mb.benchmark.id})`, { field: 'run-b' });
        const [ra, rb] = [(await readItems(home.store, a)).map((d) => d.record), (await readItems(home.store, b)).map((d) => d.record)];
        const rows = compareRuns(ra, rb, { scorer: ma.benchmark.scorer, n: Math.min(ma.n, mb.n), seed: ma.seed, iterations: flags.iterations });
        if (flags.json || flags.format === 'json') {
          process.stdout.write(`${toJson({ run_a: a, run_b: b, benchmark: ma.benchmark.id, rows })}\n`);
          return;
        }
        if (flags.format === 'html') {
          const headline = headlineKeys(ma.benchmark.id, ma.protocol?.settings.headline);
          const html = renderCompareHtml({
            benchmark: ma.benchmark.id,
            a: { run_id: a, model: ma.model.spec },
            b: { run_id: b, model: mb.model.spec },
            rows,
            headline,
            generatedAt: new Date().toISOString(),
          });
          process.stdout.write(`${await writeHtml(home, `reports/compare-${a}-vs-${b}.html`, html, flags.output)}\n`);
          return;
        }
        process.stdout.write(`${ma.benchmark.id}: a = ${a} (${ma.model.spec}), b = ${b} (${mb.model.spec})\n`);
        process.stdout.write(
          `${table(
            rows.map((r) => ({
              metric: r.metric,
              slice: r.slice,
              a: fmtValue(r.a),
              b: fmtValue(r.b),
              'b − a': fmtValue(r.diff),
              '95% CI': r.diff === null ? '' : `[${fmtValue(r.ci_low)}, ${fmtValue(r.ci_high)}]`,
              'p≈': fmtValue(r.pShare),
              units: r.units,
              note: r.reason ?? '',
            })),
          )}\n`,
        );
      },
    );
}

export function queryCommand(): Command {
  return new Command('query')
    .description('SQL over the views `records` and `metrics` (DuckDB here, Athena in AWS)')
    .argument('[sql]', 'the query (or use --file)')
    .option('-f, --file <file.sql>', 'read the query from a file')
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json', 'csv']).default('table'))
    .action(async (sqlArg: string | undefined, flags: { file?: string; format: 'table' | 'json' | 'csv' }, command: Command) => {
      const sql = flags.file ? readSql(flags.file) : sqlArg;
      if (!sql?.trim()) throw new InputError('missing SQL (pass it as an argument or with --file)', { field: 'sql' });
      const home = homeOf(command);
      noteIfNoData(home);
      const query = await DuckDbResultsQuery.open(home.storeRoot);
      try {
        const { columns, rows } = await query.sqlWithColumns(sql);
        // The header is printed even when no row matched (the rows' own keys otherwise).
        const cols = rows.length === 0 && columns.length > 0 ? columns : undefined;
        const out = flags.format === 'json' ? toJson(rows) : flags.format === 'csv' ? csv(rows, cols) : table(rows, cols);
        process.stdout.write(`${out}\n`);
      } finally {
        await query.close();
      }
    });
}
