/**
 * `polyeval leaderboard`: the best completed run per model on each benchmark of this home,
 * by the headline metric with its interval, as a table, JSON, CSV or an HTML page.
 */
import { Command, Option } from 'commander';
import { openHome, type Home } from '#app/local/home.ts';
import { completedRuns } from '#app/local/leaderboard.ts';
import { parseBenchmarkSpec } from '#core/benchmarks/index.ts';
import { InputError } from '#core/errors.ts';
import { boardLabel, buildLeaderboard, type LeaderboardOptions, type LeaderboardRow } from '#core/report/index.ts';
import { renderLeaderboardHtml } from '#core/report/index.ts';
import { csv, fmtValue, table, toJson } from './format.ts';
import { noteIfNoData } from './home-note.ts';
import { writeHtml } from './html-output.ts';

export type BoardFormat = 'table' | 'json' | 'csv' | 'html';

/** A leaderboard row as the terminal table shows it; the remote API may not know items, cost or date. */
export type TableRow = Omit<LeaderboardRow, 'items' | 'cost_usd' | 'date'> & Partial<Pick<LeaderboardRow, 'items' | 'cost_usd' | 'date'>>;

/** The leaderboard as a terminal table (`polyeval leaderboard`, and `remote leaderboard` alike). */
export function leaderboardTable(rows: readonly TableRow[]): string {
  return table(
    rows.map((r) => ({
      benchmark: boardLabel(r),
      model: r.model,
      metric: r.metric,
      value: fmtValue(r.value),
      '95% CI': r.value === null ? `absent: ${r.reason ?? ''}` : `[${fmtValue(r.ci_low)}, ${fmtValue(r.ci_high)}]`,
      items: r.items ?? '',
      cost: r.cost_usd === undefined ? '' : `$${r.cost_usd.toFixed(4)}`,
      date: (r.date ?? '').slice(0, 16).replace('T', ' '),
      run: r.run_id,
    })),
    ['benchmark', 'model', 'metric', 'value', '95% CI', 'items', 'cost', 'date', 'run'],
    { maxWidth: 80 },
  );
}

/** Prints the leaderboard in one format on stdout (HTML: writes the file, prints its path). */
export async function printLeaderboard(home: Home, rows: readonly LeaderboardRow[], format: BoardFormat, output?: string): Promise<void> {
  if (format === 'json') process.stdout.write(`${toJson({ rows })}\n`);
  else if (format === 'csv')
    process.stdout.write(
      `${csv(rows as unknown as readonly Record<string, unknown>[], ['benchmark', 'dataset', 'language', 'protocol', 'model', 'metric', 'value', 'ci_low', 'ci_high', 'n', 'items', 'cost_usd', 'date', 'run_id', 'runs', 'reason'])}\n`,
    );
  else if (format === 'html')
    process.stdout.write(
      `${await writeHtml(home, 'reports/leaderboard.html', renderLeaderboardHtml(rows, { generatedAt: new Date().toISOString() }), output)}\n`,
    );
  else process.stdout.write(`${rows.length === 0 ? '(no completed runs)' : leaderboardTable(rows)}\n`);
}

export function leaderboardCommand(): Command {
  return new Command('leaderboard')
    .description('best completed run per model on each benchmark, by the headline metric with its 95% interval')
    .option('-b, --benchmark <benchmark>', 'only this benchmark id (rocode, abricot, …) or dataset (sample/abricot, abricot:<path>)')
    .option('--metric <metric>', "rank by this metric key (e.g. accuracy, pearson/subtask=abstractness) instead of each benchmark's headline metric")
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json', 'csv', 'html']).default('table'))
    .option('-o, --output <file.html>', 'with --format html: where to write the page (default: <home>/store/reports/leaderboard.html)')
    .action(async (flags: { benchmark?: string; metric?: string; format: BoardFormat; output?: string }, command: Command) => {
      // -o names where the HTML page goes; the other formats print on stdout, so it would be ignored.
      if (flags.output !== undefined && flags.format !== 'html') {
        throw new InputError(`-o writes the HTML page: give it with --format html (--format ${flags.format} prints on stdout; redirect it to a file with >)`, {
          field: 'output',
        });
      }
      const home = openHome(command.optsWithGlobals<{ home?: string }>().home);
      noteIfNoData(home);
      const options: LeaderboardOptions = { ...(flags.benchmark ? { benchmark: flags.benchmark } : {}), ...(flags.metric ? { metric: flags.metric } : {}) };
      const rows = buildLeaderboard(await completedRuns(home), options);
      // No board of that name: a misspelt benchmark or dataset is named (as `run -b` names it), not shown as an empty board.
      if (rows.length === 0 && flags.benchmark) parseBenchmarkSpec(flags.benchmark);
      await printLeaderboard(home, rows, flags.format, flags.output);
    });
}
