/**
 * What the HTTP API reads: runs from the ledger, manifests and summaries from the store, the
 * leaderboard from the results tables. An unknown run and a run not completed yet are their
 * own errors, so the api maps them to 404 and 409.
 */
import { HarnessError, InputError, PolyevalError } from '#core/errors.ts';
import type { BlobStore, ResultsQuery, RunLedger, RunSummary } from '#core/ports.ts';
import { parseRunSummary, type RunSummaryDocument } from '#core/run/aggregate.ts';
import { keys, safeSegment } from '#core/run/keys.ts';
import type { Manifest } from '#core/run/manifest.ts';
import { ATHENA_MAX_QUERY_BYTES, leaderboardSql, sqlString } from '#aws/athena-sql.ts';
import { cloudKeys, readKeptManifest } from './context.ts';

export class RunNotFoundError extends PolyevalError {
  override name = 'RunNotFoundError';
  constructor(readonly runId: string) {
    super(`no run "${runId}"`);
  }
}

export class RunNotCompletedError extends PolyevalError {
  override name = 'RunNotCompletedError';
  constructor(readonly runId: string, readonly status: string) {
    super(`run "${runId}" is ${status}, not completed: its metrics are not computed yet`);
  }
}

export interface QueryDeps {
  store: BlobStore;
  ledger: RunLedger;
  results: ResultsQuery;
}

export interface RunView {
  run: RunSummary;
  /** Null until plan has written it. */
  manifest: Manifest | null;
}

/** Run ids are generated ids; anything else is not looked up (it would only make odd keys). */
const RUN_ID = /^[A-Za-z0-9._-]{1,200}$/;

export function checkRunId(runId: string): void {
  if (!RUN_ID.test(runId)) throw new InputError('expected a run id (letters, digits, ".", "_", "-")', { field: 'id' });
}

export async function listRuns(deps: Pick<QueryDeps, 'ledger'>): Promise<RunSummary[]> {
  return deps.ledger.listRuns();
}

export async function getRunView(deps: Pick<QueryDeps, 'store' | 'ledger'>, runId: string): Promise<RunView> {
  checkRunId(runId);
  const run = await deps.ledger.getRun(runId);
  if (run === undefined) throw new RunNotFoundError(runId);
  return { run, manifest: (await readKeptManifest(deps.store, runId)) ?? null };
}

export async function getRunMetrics(deps: Pick<QueryDeps, 'store' | 'ledger'>, runId: string): Promise<RunSummaryDocument> {
  checkRunId(runId);
  const run = await deps.ledger.getRun(runId);
  if (run === undefined) throw new RunNotFoundError(runId);
  // A run closed with missing items has its summary too (the missing items are listed in it).
  const done = run.status === 'completed' || run.status === 'completed_with_missing';
  const text = done ? ((await deps.store.getText(keys.summary(runId))) ?? (await deps.store.getText(cloudKeys.keptSummary(runId)))) : undefined;
  if (text === undefined) throw new RunNotCompletedError(runId, run.status);
  return parseRunSummary(text, runId);
}

export interface LeaderboardQuery {
  benchmark?: string | undefined;
  metric?: string | undefined;
  slice?: string | undefined;
}

/**
 * Best run per model of one benchmark. The runs come from the ledger, and the query names them
 * (`run_id IN (…)`): Athena projects `run_id` as an injected key, so it cannot enumerate the
 * runs itself. Every run of the benchmark is named whatever its status — a run without a
 * metrics file simply adds no row — so a status added later cannot hide runs. A benchmark
 * with no run answers no rows without a query.
 */
export async function leaderboard(deps: Pick<QueryDeps, 'results' | 'ledger'>, query: LeaderboardQuery): Promise<{ benchmark: string; rows: Record<string, unknown>[] }> {
  const benchmark = query.benchmark?.trim();
  if (!benchmark) throw new InputError('the query parameter "benchmark" is required (e.g. ?benchmark=rocode)', { field: 'benchmark' });
  const options = { ...(query.metric ? { metric: query.metric } : {}), ...(query.slice ? { slice: query.slice } : {}) };
  // The partition value is the key segment the writer used (keys.metrics), not the raw id.
  const runIds = [...new Set((await deps.ledger.listRuns()).filter((run) => run.benchmark === benchmark).map((run) => safeSegment(run.runId)))];
  if (runIds.length === 0) return { benchmark, rows: [] };
  const sql = leaderboardSql(benchmark, { ...options, runIds });
  // Counted as if the values were inlined: a conservative bound on what Athena is sent.
  const bytes = Buffer.byteLength(sql.text, 'utf8') + sql.params.reduce((sum, value) => sum + Buffer.byteLength(sqlString(value), 'utf8'), 0);
  if (bytes > ATHENA_MAX_QUERY_BYTES) {
    throw new HarnessError(`the leaderboard of "${benchmark}" names ${runIds.length} runs: its query (${bytes} bytes) exceeds Athena's ${ATHENA_MAX_QUERY_BYTES}-byte limit`);
  }
  return { benchmark, rows: await deps.results.sql(sql) };
}
