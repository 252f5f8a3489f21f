/**
 * aggregate in the cloud: the engine's aggregateRun (idempotent: it overwrites the same
 * keys) over the stored records, RoCode's code-switching metric beside it, then the
 * `RunCompleted` event with the headline metrics. A run already completed is skipped, so a
 * duplicate aggregate message neither recomputes nor re-announces it.
 */
import { HarnessError } from '#core/errors.ts';
import { codeSwitchingRows } from '#core/metrics/index.ts';
import type { BlobStore, RunLedger } from '#core/ports.ts';
import { aggregateRun, type RunSummaryDocument } from '#core/run/aggregate.ts';
import { keys } from '#core/run/keys.ts';
import type { Manifest } from '#core/run/manifest.ts';
import type { MetricRow, RunRecord } from '#core/types.ts';
import { readManifest, readTaskSnapshot } from './cloud-context.ts';
import type { EventPublisher } from './cloud-events.ts';

export interface AggregateCloudDeps {
  store: BlobStore;
  ledger: RunLedger;
  clock: () => Date;
  events: EventPublisher;
  /** Writable cache (the lexicon's word list). */
  cacheDir: string;
  /** Bootstrap resamples (default 1000). */
  iterations?: number;
}

export type AggregateOutcome = { status: 'aggregated'; summary: RunSummaryDocument } | { status: 'skipped'; reason: string };

export async function aggregateCloudRun(deps: AggregateCloudDeps, runId: string): Promise<AggregateOutcome> {
  const run = await deps.ledger.getRun(runId);
  if (run === undefined) throw new HarnessError(`aggregate: run ${runId} is not in the ledger`);
  if (run.status === 'completed' && (await deps.store.exists(keys.summary(runId)))) return { status: 'skipped', reason: 'already completed' };
  if (run.items === 0 || run.recorded < run.items) return { status: 'skipped', reason: `${run.recorded} of ${run.items} items recorded` };
  const manifest = await readManifest(deps.store, runId);
  if (manifest === undefined) throw new HarnessError(`aggregate: run ${runId} has no manifest`);
  const summary = await aggregateRun(
    { store: deps.store, ledger: deps.ledger, clock: deps.clock, ...(deps.iterations ? { iterations: deps.iterations } : {}) },
    manifest,
    (records) => extraMetrics(deps, manifest, records),
  );
  await deps.events.publish('RunCompleted', runCompletedDetail(summary));
  return { status: 'aggregated', summary };
}

/** The event's detail: the run and its slice-`all` metrics (per-slice values stay in S3, events are small). */
export function runCompletedDetail(summary: RunSummaryDocument): Record<string, unknown> {
  const metrics = Object.fromEntries(Object.entries(summary.metrics).filter(([key]) => !key.includes('/')));
  return {
    runId: summary.run_id,
    benchmark: summary.benchmark,
    model: summary.model,
    status: summary.status,
    items: summary.items,
    verdicts: summary.verdicts,
    metrics,
    report: summary.report,
    completedAt: summary.completed_at,
  };
}

/** RoCode: code-switching of the generated code beside the reference solutions of the same tasks. */
async function extraMetrics(deps: AggregateCloudDeps, manifest: Manifest, records: readonly RunRecord[]): Promise<MetricRow[]> {
  if (manifest.benchmark.id !== 'rocode' || !manifest.language) return [];
  const language = manifest.language;
  const evaluated = new Set(records.map((r) => r.task_id));
  const tasks = (await readTaskSnapshot(deps.store, manifest.run_id)).filter((t) => evaluated.has(t.id));
  // Loaded on demand: the hunspell dictionaries are read from files beside their package at
  // import time, so only RoCode runs pay for them (and need them shipped with the bundle).
  const { loadRomanianLexicon } = await import('#sources/romanian-lexicon.ts');
  const lexicon = await loadRomanianLexicon({ cacheDir: deps.cacheDir });
  return codeSwitchingRows({
    records,
    references: tasks.map((t) => (t.kind === 'io-tests' ? (t.solutions[language] ?? '') : '')),
    language,
    isRomanian: (w) => lexicon.isRomanian(w),
    head: { run_id: manifest.run_id, benchmark: manifest.benchmark.id, model: manifest.model.name },
    seed: manifest.seed,
  });
}
