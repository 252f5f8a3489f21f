/**
 * aggregate in the cloud, two kinds of message (layers/app/cloud/record-parts.ts):
 * - `{ runId, part }`: write one records part (≤ one plan chunk of item reads) while the run
 *   goes on;
 * - `{ runId }`: the whole run from its parts — metrics, summary, report (idempotent: the same
 *   keys are overwritten), the benchmark's own metrics (RoCode's code-switching) beside them, then the `RunCompleted`
 *   event with the headline metrics. With `allowMissing` (the watchdog) a run whose items are
 *   not all recorded is aggregated over what is, status `completed_with_missing`, the missing
 *   items listed in the summary.
 * A run already completed or cancelled is skipped, so a duplicate message neither recomputes
 * nor re-announces it.
 */
import { HarnessError } from '#core/errors.ts';
import { computeExtraMetrics } from '#core/benchmarks/index.ts';
import { findBenchmark } from '#core/benchmarks/index.ts';
import type { BlobStore, EventPublisher, RunLedger } from '#core/ports.ts';
import { aggregateRun, documentFromRecord, parseRunSummary, summariseRecords, type RunSummaryDocument } from '#core/report/index.ts';
import { tieWarningOf } from '#core/judging/index.ts';
import { keys } from '#core/run/index.ts';
import { storedJson } from '#core/run/index.ts';
import type { Manifest } from '#core/run/index.ts';
import type { MetricRow, RunRecord } from '#core/types.ts';
import { loadBenchmarkResources } from '#sources/index.ts';
import { cloudKeys, readTaskSnapshot } from './context.ts';
import { readManifest } from '#core/run/index.ts';
import type { AggregateMessage } from './messages.ts';
import { compactPart, parsePartManifest, partFileComplete, partKeys, readPartManifests, readRunRecords, unplannedChunks, wasResumed } from './record-parts.ts';
import { PLAN_CHUNK } from './plan.ts';
import { keepRecordedToolchains, readRecordedToolchains, withRecordedToolchains } from './toolchain-record.ts';

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

export type AggregateOutcome =
  | { status: 'aggregated'; summary: RunSummaryDocument }
  | { status: 'compacted'; part: number; records: number; missing: number }
  | { status: 'skipped'; reason: string };

/** Handles one aggregate message: one records part, or the whole run. */
export async function aggregateCloud(deps: AggregateCloudDeps, message: AggregateMessage): Promise<AggregateOutcome> {
  return message.part === undefined
    ? aggregateCloudRun(deps, message.runId, message.allowMissing ?? false, message.deadLettered, message.recompact ?? false, message.late ?? false)
    : compactCloudPart(deps, message.runId, message.part);
}

/** Writes one records part (the run's last record may already have triggered the final aggregate: harmless, same rows). */
export async function compactCloudPart(deps: Pick<AggregateCloudDeps, 'store' | 'ledger'>, runId: string, index: number): Promise<AggregateOutcome> {
  const run = await deps.ledger.getRun(runId);
  if (run === undefined) throw new HarnessError(`aggregate: run ${runId} is not in the ledger`);
  if (run.status === 'completed' || run.status === 'cancelled') return { status: 'skipped', reason: `run is ${run.status}` };
  const manifest = await readManifest(deps.store, runId);
  if (manifest === undefined) throw new HarnessError(`aggregate: run ${runId} has no manifest`);
  const text = await deps.store.getText(partKeys.manifest(runId, index));
  if (text === undefined) throw new HarnessError(`aggregate: run ${runId} has no part ${index} at ${deps.store.locate(partKeys.manifest(runId, index))}`);
  const part = parsePartManifest(text, deps.store.locate(partKeys.manifest(runId, index)));
  // Written already with every record (the part message came again): the items are not read again.
  if (await partFileComplete(deps.store, manifest, part)) return { status: 'skipped', reason: `part ${index} is stored with its ${part.items.length} records` };
  const compacted = await compactPart(deps.store, manifest, part);
  return { status: 'compacted', part: index, records: compacted.records.length, missing: compacted.missing.length };
}

export async function aggregateCloudRun(
  deps: AggregateCloudDeps,
  runId: string,
  allowMissing = false,
  deadLettered?: readonly string[],
  /** A resume's last record (AggregateMessage.recompact): parts compacted again, a completed run aggregated again. */
  recompact = false,
  /** An item recorded after the run was closed with missing items (AggregateMessage.late): aggregated again unless nothing was recorded since. */
  late = false,
): Promise<AggregateOutcome> {
  const run = await deps.ledger.getRun(runId);
  if (run === undefined) throw new HarnessError(`aggregate: run ${runId} is not in the ledger`);
  if (run.status === 'completed' && !recompact && (await deps.store.exists(keys.summary(runId)))) return { status: 'skipped', reason: 'already completed' };
  if (run.status === 'cancelled') return { status: 'skipped', reason: 'the run is cancelled' };
  if (late) {
    // Running again (a redrive or resume): its own close or completion aggregates it.
    if (run.status !== 'completed_with_missing' && run.status !== 'aggregating')
      return { status: 'skipped', reason: `a late record, but the run is ${run.status}` };
    // Another aggregation of the run is under way (the watchdog's; aggregate runs messages concurrently): its read may predate
    // the record and its summary land after this one's. The message comes back (SQS) and is judged once that one has ended.
    if (run.status === 'aggregating')
      throw new HarnessError(`aggregate: run ${runId} is being aggregated; its late record is counted when this message comes back after that`);
    const previous = await readKeptSummary(deps, runId);
    // The last summary counted every item the ledger counts now: a burst of late records is aggregated once.
    if (previous?.missing !== undefined && run.recorded <= run.items - previous.missing.length)
      return { status: 'skipped', reason: `no item recorded since the summary (${run.recorded} of ${run.items})` };
    // Still missing and dead-lettered when the watchdog closed the run: still told apart from the lost ones.
    deadLettered ??= previous?.dead_lettered;
  }
  if (run.items === 0 || (!allowMissing && run.recorded < run.items)) return { status: 'skipped', reason: `${run.recorded} of ${run.items} items recorded` };
  const planned = await readManifest(deps.store, runId);
  if (planned === undefined) throw new HarnessError(`aggregate: run ${runId} has no manifest`);
  // The report shows the toolchains the judges recorded, as a local run's (the stored manifest is unchanged).
  const recorded = await readRecordedToolchains(deps.store, runId);
  const manifest = withRecordedToolchains(
    planned,
    recorded.records.map((r) => r.toolchain),
  );
  const options = { store: deps.store, ledger: deps.ledger, clock: deps.clock, ...(deps.iterations ? { iterations: deps.iterations } : {}) };
  const extra = (records: readonly RunRecord[]) => extraMetrics(deps, manifest, records);
  let summary: RunSummaryDocument;
  if ((await readPartManifests(deps.store, runId)).length === 0) {
    // Planned before records parts existed: read item by item, as the local aggregate does.
    summary = await aggregateRun(options, manifest, extra);
  } else {
    await deps.ledger.setStatus(runId, 'aggregating');
    // A resumed run's parts may hold records a resume replaced since: written again from the item records.
    const { records, missing, parts, ties } = await readRunRecords(deps.store, manifest, { recompact: recompact || (await wasResumed(deps.store, runId)) });
    // A chunk whose plan message was lost has no part manifest: name it, or the run would look complete.
    const unplanned = unplannedChunks(runId, parts, run.items, PLAN_CHUNK);
    summary = await summariseRecords(options, manifest, records.map(documentFromRecord), extra, {
      missing: [...missing, ...unplanned],
      timing: true,
      ties,
      ...(deadLettered ? { deadLettered } : {}),
    });
    // The tie warning reaches `remote status` too, as the run's reason (after the missing items').
    const tied = tieWarningOf(ties);
    if (missing.length === 0 && unplanned.length === 0) await deps.ledger.setStatus(runId, 'completed', tied ? `warning: ${tied}` : undefined);
    else
      await deps.ledger.setStatus(
        runId,
        'completed_with_missing',
        [missingReason(runId, run.items, summary, unplanned), ...(tied ? [`warning: ${tied}`] : [])].join('; '),
      );
  }
  // The kept copy, for readers after the lifecycle rules expired runs/ (cloud-context.ts).
  await deps.store.put(cloudKeys.keptSummary(runId), storedJson(summary, 2), 'application/json');
  // The toolchain records kept likewise; failing to keep them never fails the run (readers then say they were not recorded).
  await keepRecordedToolchains(deps.store, runId, recorded).catch(() => undefined);
  await deps.events.publish('RunCompleted', runCompletedDetail(summary));
  return { status: 'aggregated', summary };
}

/** The run's stored summary (undefined: none yet). */
async function readKeptSummary(deps: Pick<AggregateCloudDeps, 'store'>, runId: string): Promise<RunSummaryDocument | undefined> {
  const text = await deps.store.getText(keys.summary(runId));
  return text === undefined ? undefined : parseRunSummary(text, deps.store.locate(keys.summary(runId)));
}

/** The ledger's reason for `completed_with_missing`, as `polyeval remote status` shows it. */
export function missingReason(
  runId: string,
  items: number,
  summary: Pick<RunSummaryDocument, 'missing' | 'dead_lettered' | 'lost'> & { items?: number },
  unplanned: readonly string[] = [],
): string {
  const missing = unplanned.length === 0 || summary.items === undefined ? (summary.missing?.length ?? 0) : items - summary.items;
  const chunks =
    unplanned.length === 0 ? '' : `; ${unplanned.length} plan chunk(s) never planned: ${unplanned.slice(0, 3).join(', ')}${unplanned.length > 3 ? ', …' : ''}`;
  const head = `${missing} of ${items} items never recorded (listed in the summary${chunks})`;
  if (summary.dead_lettered === undefined || summary.lost === undefined) return `${head}; polyeval remote redrive ${runId} retries dead-lettered ones`;
  return `${head}: ${summary.dead_lettered.length} dead-lettered (polyeval remote redrive ${runId} retries them), ${summary.lost.length} lost (in no queue: run them again)`;
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
    ...(summary.missing ? { missing: summary.missing.length } : {}),
    verdicts: summary.verdicts,
    metrics,
    report: summary.report,
    completedAt: summary.completed_at,
  };
}

/** The benchmark's own metrics (RoCode: code-switching), by the same function as a local run. */
async function extraMetrics(deps: AggregateCloudDeps, manifest: Manifest, records: readonly RunRecord[]): Promise<MetricRow[]> {
  const benchmark = findBenchmark(manifest.benchmark.id);
  if (!benchmark?.extraMetrics) return [];
  const head = { run_id: manifest.run_id, benchmark: manifest.benchmark.id, model: manifest.model.name };
  const tasks = await readTaskSnapshot(deps.store, manifest.run_id);
  return computeExtraMetrics(benchmark, { records, tasks, head, seed: manifest.seed, ...(deps.iterations ? { iterations: deps.iterations } : {}) }, (needs) =>
    loadBenchmarkResources(needs, { cacheDir: deps.cacheDir }),
  );
}
