/**
 * `polyeval rm` and `polyeval gc`: deleting runs from this home (items, manifest, summary,
 * results partitions, reports, ledger journal) and pruning the sandbox's compile cache,
 * reporting the bytes freed. Results of other runs are never touched: each run's files
 * live under paths that name it.
 */
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CorruptRecordError, InputError } from '#core/errors.ts';
import { keys } from '#core/run/index.ts';
import { parseManifest } from '#core/run/index.ts';
import { sizeOf } from '#sandbox/compile-cache-gc.ts';
import type { Home } from './home.ts';
import { cancelRunningJobs } from './batch-cancel.ts';

export interface RemovedRun {
  run_id: string;
  freed_bytes: number;
  /** Batch jobs of the run that were still running at the provider, cancelled before its files went. */
  cancelled_jobs?: string[];
}

/** Every file and folder of a run, as paths under the home. */
async function pathsOf(home: Home, runId: string, benchmark: string): Promise<string[]> {
  const reports = (await home.store.list('reports/')).filter((k) => k.startsWith(`reports/${runId}.`) || k.startsWith(`reports/${runId}/`));
  return [
    home.store.locate(`runs/${runId}`),
    dirname(home.store.locate(keys.recordsPart(benchmark, runId))),
    dirname(home.store.locate(keys.metrics(benchmark, runId))),
    ...reports.map((k) => home.store.locate(k)),
    home.ledger.journalPath(runId),
  ];
}

/** A run's ledger entry and manifest text; InputError when the home has neither. */
async function findRun(home: Home, runId: string) {
  // A run whose journal is damaged is still removable: listRuns lists it (as failed) from its first line.
  const run = await home.ledger.getRun(runId).catch(async (error: unknown) => {
    if (error instanceof CorruptRecordError) return (await home.ledger.listRuns()).find((r) => r.runId === runId);
    throw error;
  });
  const manifestText = await home.store.getText(keys.manifest(runId));
  if (!run && !manifestText) throw new InputError(`no run "${runId}" in ${home.root} (see: polyeval list runs)`, { field: 'run' });
  return { run, manifestText };
}

/** Removes runs, all or none: an id the home does not have is an InputError before anything is deleted. */
export async function removeRuns(home: Home, runIds: readonly string[]): Promise<RemovedRun[]> {
  for (const runId of runIds) await findRun(home, runId);
  // Jobs first, for every run: a job that cannot be cancelled leaves every run in place.
  const cancelled = new Map<string, string[]>();
  for (const runId of new Set(runIds)) cancelled.set(runId, await cancelRunningJobs(home, runId));
  const removed: RemovedRun[] = [];
  for (const runId of new Set(runIds)) {
    const jobs = cancelled.get(runId) ?? [];
    removed.push({ ...(await removeRun(home, runId)), ...(jobs.length > 0 ? { cancelled_jobs: jobs } : {}) });
  }
  return removed;
}

/** Removes one run; InputError when the home has no such run. */
export async function removeRun(home: Home, runId: string): Promise<RemovedRun> {
  const { run, manifestText } = await findRun(home, runId);
  const benchmark = run?.benchmark ?? parseManifest(manifestText as string, home.store.locate(keys.manifest(runId))).benchmark.id;
  let freed = 0;
  for (const path of await pathsOf(home, runId, benchmark)) {
    freed += await sizeOf(path);
    if (path === home.ledger.journalPath(runId)) await home.ledger.removeRun(runId);
    else await rm(path, { recursive: true, force: true });
  }
  return { run_id: runId, freed_bytes: freed };
}

/** Removes every run created more than `days` days before `now`. */
export async function removeRunsOlderThan(home: Home, days: number, now: Date): Promise<RemovedRun[]> {
  const cutoff = now.getTime() - days * 86_400_000;
  const removed: RemovedRun[] = [];
  for (const run of await home.ledger.listRuns()) {
    if (Date.parse(run.createdAt) >= cutoff) continue;
    const jobs = await cancelRunningJobs(home, run.runId);
    removed.push({ ...(await removeRun(home, run.runId)), ...(jobs.length > 0 ? { cancelled_jobs: jobs } : {}) });
  }
  return removed;
}
