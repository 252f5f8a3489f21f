/**
 * GET /leaderboard: a benchmark's runs on the boards the local leaderboard uses (one dataset,
 * one language, one protocol, ranked by that protocol's headline), one Athena query per board.
 *
 * The runs come from the ledger and each board's query names them (`run_id IN (…)`): Athena
 * projects `run_id` as an injected key, so it cannot enumerate the runs itself. Every run of
 * the benchmark is placed whatever its status — a run without a metrics file simply adds no
 * row — so a status added later cannot hide runs. Where a run belongs is read from its
 * manifest (the kept copy once `runs/` has expired); a run with no manifest left is skipped.
 */
import pLimit from 'p-limit';
import { bindProtocol } from '#core/benchmarks/index.ts';
import { findBenchmark } from '#core/benchmarks/index.ts';
import { HarnessError, InputError } from '#core/errors.ts';
import type { ResultsQuery, RunLedger } from '#core/ports.ts';
import type { DocumentSource } from '#core/run/index.ts';
import { groupBoards, type Board, type BoardRun } from '#core/report/index.ts';
import { boardRunOfManifest } from '#core/report/index.ts';
import { metricKey } from '#core/report/index.ts';
import { safeSegment } from '#core/run/index.ts';
import { ATHENA_MAX_QUERY_BYTES, leaderboardSql, sqlString } from '#aws/index.ts';
import { readKeptManifest } from './context.ts';

/** Manifests read at once (S3 GETs). */
const MANIFEST_READS = 16;
/** Board queries in flight at once (Athena counts concurrent queries per account). */
const BOARD_QUERIES = 4;

export interface LeaderboardQuery {
  benchmark?: string | undefined;
  metric?: string | undefined;
  slice?: string | undefined;
  protocol?: string | undefined;
  language?: string | undefined;
  dataset?: string | undefined;
}

export interface LeaderboardDeps {
  store: DocumentSource;
  ledger: Pick<RunLedger, 'listRuns'>;
  results: ResultsQuery;
}

/** The response: rows board by board, best first within a board. */
export interface LeaderboardAnswer {
  benchmark: string;
  rows: Record<string, unknown>[];
}

/** A protocol the benchmark does not have is the caller's mistake, named as POST /runs names it. */
function checkProtocol(benchmark: string, protocol: string | undefined): void {
  const known = findBenchmark(benchmark);
  if (protocol !== undefined && known) bindProtocol(known, { protocol });
}

/** What the ledger knows of a placed run that its metrics do not say: items, cost, date. */
type RunFacts = Map<string, { items: number; cost_usd: number; date: string }>;

async function placedRuns(deps: Pick<LeaderboardDeps, 'store' | 'ledger'>, benchmark: string, facts: RunFacts): Promise<BoardRun[]> {
  const runs = (await deps.ledger.listRuns()).filter((run) => run.benchmark === benchmark);
  for (const run of runs) facts.set(safeSegment(run.runId), { items: run.items, cost_usd: run.costUsd, date: run.createdAt });
  const read = pLimit(MANIFEST_READS);
  const placed = await Promise.all(
    runs.map((run) =>
      read(async () => {
        const manifest = await readKeptManifest(deps.store, run.runId);
        // The partition value is the key segment the writer used (keys.metrics), not the raw id.
        return manifest === undefined ? undefined : { run_id: safeSegment(run.runId), ...boardRunOfManifest(manifest) };
      }),
    ),
  );
  return placed.filter((run) => run !== undefined);
}

async function boardRows(results: ResultsQuery, board: Board, facts: RunFacts): Promise<Record<string, unknown>[]> {
  const sql = leaderboardSql(board.benchmark, {
    metric: board.metric,
    runIds: board.runIds,
    ...(board.slices.length === 1 && board.slices[0] !== undefined ? { slice: board.slices[0] } : {}),
  });
  // Counted as if the values were inlined: a conservative bound on what Athena is sent.
  const bytes = Buffer.byteLength(sql.text, 'utf8') + sql.params.reduce((sum, value) => sum + Buffer.byteLength(sqlString(value), 'utf8'), 0);
  if (bytes > ATHENA_MAX_QUERY_BYTES) {
    throw new HarnessError(
      `the leaderboard board "${board.label}" names ${board.runIds.length} runs: its query (${bytes} bytes) exceeds Athena's ${ATHENA_MAX_QUERY_BYTES}-byte limit`,
    );
  }
  // A board ranked on several slices answers each row's slice; on one, the rows carry none.
  const only = board.slices.length === 1 ? board.slices[0] : undefined;
  return (await results.sql(sql)).map((row) => ({
    ...row,
    ...(typeof row.run_id === 'string' ? facts.get(row.run_id) : undefined),
    dataset: board.dataset,
    language: board.language,
    protocol: board.protocol,
    metric: metricKey({ metric: board.metric, slice: typeof row.slice === 'string' ? row.slice : (only ?? 'all') }),
    board: board.label,
  }));
}

/**
 * The best run per model on each board of one benchmark: rows board by board (the local
 * leaderboard's order), best first within a board. Each row is the query's (model, run_id,
 * value, ci_low, ci_high, n, runs, and `slice` where the board ranks several slices) plus its
 * board: dataset, language, protocol, metric key and the board's label, and the ledger's
 * `items`, `cost_usd` and `date` of the run (the columns of the local leaderboard). A benchmark with no
 * placed run answers no rows without a query.
 * @throws InputError without a benchmark, or for a protocol the benchmark does not have.
 */
export async function leaderboard(deps: LeaderboardDeps, query: LeaderboardQuery): Promise<LeaderboardAnswer> {
  const benchmark = query.benchmark?.trim();
  if (!benchmark) throw new InputError('the query parameter "benchmark" is required (e.g. ?benchmark=rocode)', { field: 'benchmark' });
  checkProtocol(benchmark, query.protocol);
  const facts: RunFacts = new Map();
  const boards = groupBoards(await placedRuns(deps, benchmark, facts), {
    ...(query.protocol ? { protocol: query.protocol } : {}),
    ...(query.language ? { language: query.language } : {}),
    ...(query.dataset ? { dataset: query.dataset } : {}),
    ...(query.metric ? { metric: query.metric } : {}),
    ...(query.slice ? { slice: query.slice } : {}),
  });
  const ask = pLimit(BOARD_QUERIES);
  const rows = await Promise.all(boards.map((board) => ask(() => boardRows(deps.results, board, facts))));
  return { benchmark, rows: rows.flat() };
}
