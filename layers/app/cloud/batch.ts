/**
 * Batch generation in the cloud (`remote run --batch`). plan writes each chunk of a batch run
 * as a job document (runs/<id>/batches/<index>.json: which record is which item, in which
 * records part) instead of sending its items to the generate queue. The batch stage — a
 * scheduled function, so a job that takes hours is never a chain of self-sent messages —
 * then, on every tick and for every run with open jobs:
 *
 * - reserves a job's worst case against `--max-cost` and creates it (within the model's
 *   jobs-in-flight quota; the rest wait for a slot), or finds the job a stopped tick created;
 * - polls it: the job's state and counts become the run's status line, which also tells the
 *   watchdog the run is alive while it waits (layers/app/cloud/watchdog.ts);
 * - once the job ended, reads its results by record id, books the billed cost once and routes
 *   each item like an on-demand generation (scored here, or sent to its execute queue); a
 *   record the provider failed (error line, expired or stopped job) is recorded SE with the
 *   provider's reason;
 * - for a cancelled run, stops its jobs (and books what they billed), routing nothing.
 *
 * Every step is stored before the next, so a tick killed anywhere is continued by the next
 * one: the same job is found again, never a second one submitted, never billed twice.
 */
import { InputError, RunStopped } from '#core/errors.ts';
import type { AnyBenchmark } from '#core/benchmarks/index.ts';
import type { BatchClient } from '#core/models/index.ts';
import type { BlobStore, RunSummary } from '#core/ports.ts';
import { batchKeys, describeJob, itemKeyOf, type BatchJobDocument } from '#core/run/index.ts';
import { finishJob, loadJobs, pollJob, reservePlannedJob, saveJob, submitJob } from '#core/run/index.ts';
import { costGuardOf, type GeneratedItem, type RunContext } from '#core/run/index.ts';
import type { Manifest } from '#core/run/index.ts';
import type { WorkItem } from '#core/run/index.ts';
import type { RunSpec } from '#core/run/index.ts';
import { checkCloudBatch } from './batch-clients.ts';
import { batchGenerationSpec } from '../shared/batch-spec.ts';
import type { CloudWorkItem } from './messages.ts';
import { afterRecord, alreadyRecorded, routeGenerated, type GenerateDeps } from './stages.ts';

/** Run states whose jobs are stopped, not advanced. */
const ENDING: ReadonlySet<string> = new Set(['cancelled', 'stopped', 'failed']);

/** A cancelled run's jobs are looked after for this long (Bedrock's longest job timeout, 168 h, and a day). */
const CANCELLED_WATCH_MS = (168 + 24) * 3_600_000;

/**
 * The spec of a batch run: its provider must have a batch API in the cloud, and a likert
 * benchmark reads a digit from the text (batch jobs return no log-probabilities).
 * @throws InputError naming `batch` or `likertMode`.
 */
export function cloudBatchSpec(spec: RunSpec, benchmark: AnyBenchmark): RunSpec {
  checkCloudBatch(spec.model);
  return batchGenerationSpec(
    spec,
    benchmark,
    (mode) =>
      new InputError(`batch: batch jobs return no log-probabilities, so likert mode ${mode} cannot run as a batch (use digit-parse, or run without --batch)`, {
        field: 'likertMode',
      }),
  );
}

/**
 * plan, for a batch run: one chunk's items as a job document with no reservation and no job
 * yet (the batch stage does both). A redelivered chunk finds its document and keeps it.
 */
export async function planBatchChunk(store: BlobStore, runId: string, index: number, chunk: readonly CloudWorkItem[]): Promise<void> {
  if ((await store.getText(batchKeys.job(runId, index))) !== undefined) return;
  const doc: BatchJobDocument = {
    run_id: runId,
    index,
    key: `${runId}/batch-${index}`,
    client: 'planned',
    job_id: null,
    state: 'submitting',
    reserved_usd: 0,
    reserve_pending: true,
    records: chunk.map((item, i) => ({
      record_id: `r${i}`,
      task_id: item.taskId,
      sample: item.sample,
      ...(item.language ? { language: item.language } : {}),
      ...(item.part ? { part: item.part } : {}),
    })),
  };
  await saveJob({ store }, doc);
}

export interface BatchStageDeps extends GenerateDeps {
  store: BlobStore;
  /** The batch client of a run's model (batch-clients.ts). */
  client: (manifest: Manifest) => Promise<BatchClient>;
  clock: () => Date;
}

export interface BatchTickRun {
  runId: string;
  /** One line per open job: its provider status and counts. */
  jobs: string[];
  /** Jobs waiting for a slot under the model's jobs-in-flight quota. */
  waiting: number;
  /** Why the run stopped or failed in this tick. */
  ended?: string;
  /** A fault of this tick (retried by the next). */
  error?: string;
}

export interface BatchTickReport {
  runs: BatchTickRun[];
}

interface OpenRun {
  run: RunSummary;
  ctx: RunContext;
  client: BatchClient;
  docs: BatchJobDocument[];
}

/** One tick of the batch stage over every run with open jobs. */
export async function tickBatches(deps: BatchStageDeps): Promise<BatchTickReport> {
  const now = deps.clock().getTime();
  const open: OpenRun[] = [];
  for (const run of await deps.ledger.listRuns()) {
    // A run that ended with jobs at the provider (cancelled, or stopped by --max-cost after its
    // first job was created) still has them stopped and what they billed booked.
    const watched = run.status === 'planned' || run.status === 'running' || (ENDING.has(run.status) && now - Date.parse(run.updatedAt) < CANCELLED_WATCH_MS);
    if (!watched || (await deps.store.list(batchKeys.prefix(run.runId))).length === 0) continue;
    const ctx = await deps.contexts.get(run.runId);
    const docs = (await loadJobs(ctx)).filter((d) => d.routed !== true);
    if (docs.length === 0) continue;
    let client: BatchClient;
    try {
      client = await deps.client(ctx.manifest);
    } catch (error) {
      // A run this deployment cannot serve (e.g. its provider's API key is not in SSM) fails with the reason; the other runs' jobs move on.
      if (!(error instanceof InputError) || run.status === 'cancelled') throw error;
      if (run.status === 'planned' || run.status === 'running') await ctx.ledger.setStatus(run.runId, 'failed', `batch: ${error.message}`);
      continue;
    }
    open.push({ run, ctx, client, docs });
  }
  // Jobs at the provider per model, across runs: a new job waits while its model's quota is used.
  const inFlight = new Map<string, number>();
  for (const { ctx, docs } of open)
    inFlight.set(ctx.manifest.model.spec, (inFlight.get(ctx.manifest.model.spec) ?? 0) + docs.filter((d) => d.job_id !== null && d.state !== 'settled').length);
  const runs: BatchTickRun[] = [];
  const failures: unknown[] = [];
  for (const entry of open) {
    try {
      runs.push(ENDING.has(entry.run.status) ? await stopJobs(entry) : await advance(deps, entry, inFlight));
    } catch (error) {
      // One run's provider failing leaves the others' jobs moving; the tick then fails (its alarm), and the next one retries.
      failures.push(error);
      runs.push({ runId: entry.run.runId, jobs: entry.docs.map(describeJob), waiting: 0, error: (error as Error).message });
    }
  }
  if (failures.length > 0)
    throw new AggregateError(
      failures,
      `batch stage: ${failures.length} run(s) failed this tick: ${runs
        .filter((r) => r.error)
        .map((r) => `${r.runId}: ${r.error}`)
        .join('; ')}`,
    );
  return { runs };
}

async function advance(deps: BatchStageDeps, { run, ctx, client, docs }: OpenRun, inFlight: Map<string, number>): Promise<BatchTickRun> {
  const model = ctx.manifest.model.spec;
  const limit = client.limits.maxJobsInFlight ?? Number.POSITIVE_INFINITY;
  let waiting = 0;
  try {
    for (const doc of docs) {
      if (doc.job_id === null) {
        if ((inFlight.get(model) ?? 0) >= limit) {
          waiting++;
          continue;
        }
        await reservePlannedJob(ctx, doc);
        doc.client = client.kind;
        await submitJob(ctx, client, doc);
        inFlight.set(model, (inFlight.get(model) ?? 0) + 1);
      }
      if (doc.state !== 'settled') {
        const status = await pollJob(ctx, { client }, doc);
        if (status.phase !== 'ended') continue;
        inFlight.set(model, (inFlight.get(model) ?? 1) - 1);
      }
      await finishJob(ctx, client, doc, wantedOf(doc), (generated) => route(deps, ctx, generated));
      doc.routed = true;
      await saveJob(ctx, doc);
    }
  } catch (error) {
    const ended = await settleError(ctx, run.runId, error);
    return { runId: run.runId, jobs: docs.map(describeJob), waiting, ended };
  }
  const still = docs.filter((d) => d.routed !== true);
  // The heartbeat: the run's status line names its jobs, and its update time tells the watchdog it is alive.
  if (still.length > 0) await ctx.ledger.setStatus(run.runId, 'running', statusLine(still, waiting));
  return { runId: run.runId, jobs: still.map(describeJob), waiting };
}

/** A cancelled, stopped or failed run: its jobs are stopped, what they billed is booked, nothing is routed. */
async function stopJobs({ run, ctx, client, docs }: OpenRun): Promise<BatchTickRun> {
  for (const doc of docs) {
    if (doc.job_id === null && doc.reserve_pending !== true) {
      // Reserved, so a create may have been sent and its answer lost (a timeout, a stage killed
      // before storing the id): a job the provider holds is found by its key and stopped below.
      const found = await client.find?.(doc.key).catch(() => undefined);
      if (found !== undefined) {
        Object.assign(doc, { job_id: found, state: 'submitted' });
        await saveJob(ctx, doc);
      }
    }
    if (doc.job_id === null) {
      // Never created: the reservation (if any) is released.
      if (doc.reserve_pending !== true && doc.reserved_usd > 0) await costGuardOf(ctx).settle({ usd: doc.reserved_usd, estimate: 0, settled: false }, null);
      Object.assign(doc, { state: 'settled', routed: true });
      delete doc.reserve_pending;
      await saveJob(ctx, doc);
      continue;
    }
    if (doc.state !== 'settled') {
      if (doc.cancel_requested !== true) {
        // A job that ended meanwhile refuses the stop; its results are booked all the same.
        await client.cancel(doc.job_id).catch(() => undefined);
        doc.cancel_requested = true;
        await saveJob(ctx, doc);
      }
      const status = await pollJob(ctx, { client }, doc, false);
      if (status.phase !== 'ended') continue;
    }
    await finishJob(ctx, client, doc, new Map(), () => Promise.resolve());
    doc.routed = true;
    await saveJob(ctx, doc);
  }
  return { runId: run.runId, jobs: docs.filter((d) => d.routed !== true).map(describeJob), waiting: 0 };
}

/** The work items a job answers, as the cloud routes them (with their records part). */
function wantedOf(doc: BatchJobDocument): Map<string, WorkItem> {
  return new Map(
    doc.records.map((r) => {
      const item: CloudWorkItem = {
        runId: doc.run_id,
        taskId: r.task_id,
        sample: r.sample,
        ...(r.language ? { language: r.language } : {}),
        ...(r.part ? { part: r.part } : {}),
      };
      return [itemKeyOf(item), item];
    }),
  );
}

/** A result read back: skipped when already recorded (a tick that stopped mid-way), else routed as on demand. */
async function route(deps: BatchStageDeps, ctx: RunContext, generated: GeneratedItem): Promise<void> {
  const item = generated.item as CloudWorkItem;
  if (await alreadyRecorded(ctx, item)) {
    await afterRecord(deps, item);
    return;
  }
  await routeGenerated(deps, ctx, generated);
}

/** The cost cap stops the run; bad data fails it; anything else is the tick's to retry. */
async function settleError(ctx: RunContext, runId: string, error: unknown): Promise<string> {
  if (error instanceof RunStopped) {
    await ctx.ledger.setStatus(runId, 'stopped', error.message);
    return error.message;
  }
  if (error instanceof InputError) {
    await ctx.ledger.setStatus(runId, 'failed', error.message);
    return error.message;
  }
  throw error;
}

function statusLine(docs: readonly BatchJobDocument[], waiting: number): string {
  const [first] = docs;
  const line = first ? describeJob(first) : '';
  if (docs.length === 1) return line;
  return `${docs.length} batch jobs open${waiting > 0 ? ` (${waiting} waiting for a slot under the model's jobs-in-flight quota)` : ''}; ${line}`;
}
