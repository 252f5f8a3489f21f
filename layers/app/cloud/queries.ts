/**
 * What the HTTP API reads: runs from the ledger, manifests and summaries from the store, the
 * leaderboard from the results tables (leaderboard.ts). An unknown run and a run not completed yet are their
 * own errors, so the api maps them to 404 and 409.
 */
import { InputError, PolyevalError } from '#core/errors.ts';
import type { BlobStore, ResultsQuery, RunLedger, RunSummary } from '#core/ports.ts';
import { parseRunSummary, type RunSummaryDocument } from '#core/report/index.ts';
import { keys } from '#core/run/index.ts';
import type { Manifest } from '#core/run/index.ts';
import { cloudKeys, readKeptManifest } from './context.ts';
import { readRecordedToolchains, withRecordedToolchains } from './toolchain-record.ts';

export { leaderboard, type LeaderboardQuery } from './leaderboard.ts';

export class RunNotFoundError extends PolyevalError {
  override name = 'RunNotFoundError';
  constructor(readonly runId: string) {
    super(`no run "${runId}"`);
  }
}

export class RunNotCompletedError extends PolyevalError {
  override name = 'RunNotCompletedError';
  constructor(
    readonly runId: string,
    readonly status: string,
  ) {
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
  const manifest = await readKeptManifest(deps.store, runId);
  if (manifest === undefined) return { run, manifest: null };
  // With the toolchains the judges recorded so far (toolchain-record.ts); the stored manifest is plan's.
  const recorded = await readRecordedToolchains(deps.store, runId);
  return {
    run,
    manifest: withRecordedToolchains(
      manifest,
      recorded.records.map((r) => r.toolchain),
    ),
  };
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
