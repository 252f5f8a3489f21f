/**
 * The leaderboard over this machine's runs: every completed run's summary and manifest,
 * handed to the pure {@link buildLeaderboard}.
 */
import { boardRunOfManifest, type LeaderboardRun } from '#core/report/index.ts';
import { parseRunSummary } from '#core/report/index.ts';
import { keys } from '#core/run/index.ts';
import { parseManifest } from '#core/run/index.ts';
import type { Home } from './home.ts';

/** Completed runs of this home (only `runIds` when given), as leaderboard input. */
export async function completedRuns(home: Home, runIds?: ReadonlySet<string>): Promise<LeaderboardRun[]> {
  const out: LeaderboardRun[] = [];
  for (const run of await home.ledger.listRuns()) {
    if (run.status !== 'completed' || (runIds && !runIds.has(run.runId))) continue;
    const [summaryText, manifestText] = await Promise.all([home.store.getText(keys.summary(run.runId)), home.store.getText(keys.manifest(run.runId))]);
    if (!summaryText || !manifestText) continue; // removed by hand: nothing to rank
    const summary = parseRunSummary(summaryText, home.store.locate(keys.summary(run.runId)));
    const manifest = parseManifest(manifestText, home.store.locate(keys.manifest(run.runId)));
    out.push({
      run_id: run.runId,
      ...boardRunOfManifest(manifest),
      items: summary.items,
      cost_usd: Number(run.costUsd.toFixed(6)),
      date: summary.completed_at,
      metrics: summary.metrics,
    });
  }
  return out;
}
