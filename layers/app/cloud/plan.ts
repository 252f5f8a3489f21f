/**
 * The plan stage in the cloud. The first message of a run (offset 0, carrying the request)
 * loads the dataset, plans the run, and writes the manifest and the task snapshot the later
 * stages read; it enqueues the first chunk of work items and sends, at once, the plan message
 * of every later chunk; each of those enqueues its own chunk and sends nothing to the plan
 * queue. So 100k items never wait on one invocation, and a redelivered chunk only re-sends
 * items the ledger will count once.
 *
 * Why a fan-out and not a chain (each chunk sending the next): Lambda's recursive loop
 * detection follows the chain of invocations through SQS and stops it after about 16 hops
 * ("Use Lambda recursive loop detection to prevent infinite loops",
 * https://docs.aws.amazon.com/lambda/latest/dg/invocation-recursion.html): a chain of
 * 1,000-item chunks ended near 16,000 items. Fanned out, every chunk is two hops from the api,
 * whatever the run's size, and the functions keep the default `recursiveLoop: Terminate`,
 * which still protects against a real loop.
 */
import { InputError } from '#core/errors.ts';
import type { Provider } from '#core/models/index.ts';
import type { BlobStore, RunLedger, SetRunItems, WorkQueue } from '#core/ports.ts';
import { itemId } from '#core/run/index.ts';
import { protocolChoiceOfManifest, type Manifest } from '#core/run/index.ts';
import { protocolChoiceOf } from '#core/run/index.ts';
import { replanItems, type LoadedBenchmark, type WorkItem } from '#core/run/index.ts';
import { parseBenchmarkSpec } from '#core/benchmarks/index.ts';
import { HarnessError } from '#core/errors.ts';
import { isBilled, shippedPriceTable } from '#providers/index.ts';
import { planPrice, recordedPrice } from '../shared/cost-projection.ts';
import { loadSource, type LoadOptions } from '../shared/load-benchmark.ts';
import { cloudKeys, readTaskSnapshot, serialiseTasks } from './context.ts';
import { readManifest } from '#core/run/index.ts';
import { planNewRun } from '#core/run/orchestrate.ts';
import { recordSettings } from '#core/run/index.ts';
import { publishTestFiles } from './test-files.ts';
import { versioned, type CloudWorkItem, type PlanMessage } from './messages.ts';
import { writePartManifest } from './record-parts.ts';
import { cloudBatchSpec, planBatchChunk } from './batch.ts';
import { resumeChunk } from './resume.ts';

/** Work items enqueued per plan invocation. */
export const PLAN_CHUNK = 1000;

export interface PlanDeps {
  store: BlobStore;
  ledger: RunLedger;
  setItems: SetRunItems;
  planQueue: Pick<WorkQueue<PlanMessage>, 'send'>;
  generateQueue: Pick<WorkQueue<CloudWorkItem>, 'send'>;
  load: LoadOptions;
  createProvider: (spec: string) => Promise<Provider>;
  code: Manifest['code'];
  packages: Record<string, string>;
  chunkSize?: number;
  /** Fewest records one batch job of this model takes (`remote run --batch`; batch-clients.ts cloudBatchMinRecords). Default 1. */
  batchMinRecords?: (modelSpec: string) => number;
  /** Reads the run's dataset (default: load-benchmark.ts's loadSource; the cloud-scale simulation passes its own store's). */
  loadSource?: typeof loadSource;
}

export type PlanOutcome =
  | { status: 'enqueued'; runId: string; offset: number; sent: number; total: number; fannedOut: number }
  | { status: 'failed'; runId: string; reason: string }
  | { status: 'skipped'; runId: string; reason: string };

/** Plans (offset 0) and enqueues one chunk. A bad request fails the run (status `failed` with the reason), not the message. */
export async function planChunk(deps: PlanDeps, message: PlanMessage): Promise<PlanOutcome> {
  const { runId } = message;
  let manifest: Manifest;
  let loaded: LoadedBenchmark;
  let provider: Provider | undefined;
  const run = await deps.ledger.getRun(runId);
  if (run?.status === 'cancelled') return { status: 'skipped', runId, reason: 'the run is cancelled' };
  if (message.resume !== undefined) return resumeChunk(deps, message);
  try {
    // A redelivered first message finds the manifest: the run is planned already, keep it as it is.
    const found = await readManifest(deps.store, runId);
    if (found === undefined && message.request !== undefined) {
      ({ manifest, loaded, provider } = await planFirst(deps, message));
    } else {
      if (found === undefined) throw new HarnessError(`plan chunk at ${message.offset} of run ${runId}: no manifest yet`);
      manifest = found;
      loaded = await snapshotAsLoaded(deps.store, manifest);
      provider = await deps.createProvider(manifest.model.spec);
    }
    await provider.prepare?.(new Set(loaded.tasks.map((t) => t.id)));
    // One code path for every chunk, so all chunks agree on the items and their order.
    const { items } = replanItems(manifest, loaded, provider);
    const size = deps.chunkSize ?? PLAN_CHUNK;
    const batch = manifest.generation === 'batch';
    // A batch run's last chunk takes a remainder below the provider's minimum records per job.
    const minLast = batch ? (deps.batchMinRecords?.(manifest.model.spec) ?? 1) : 1;
    const chunk = items.slice(message.offset, chunkEnd(items.length, size, message.offset, minLast));
    // One records part per chunk: its manifest first, so a part is never counted before it is described.
    const index = Math.floor(message.offset / size);
    await writePartManifest(deps.store, runId, index, chunk);
    const body = (item: WorkItem, slot: number): CloudWorkItem => versioned({ ...item, part: { index, slot, size: chunk.length } });
    if (batch) await planBatchChunk(deps.store, runId, index, chunk.map(body));
    else await deps.generateQueue.send(chunk.map((item, slot) => ({ id: itemId(runId, item.taskId, item.sample), body: body(item, slot) })));
    const later = message.offset === 0 ? laterChunks(runId, items.length, size, minLast) : [];
    if (later.length > 0) await deps.planQueue.send(later);
    return { status: 'enqueued', runId, offset: message.offset, sent: chunk.length, total: items.length, fannedOut: later.length };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    await deps.ledger.setStatus(runId, 'failed', error.message);
    return { status: 'failed', runId, reason: error.message };
  } finally {
    await provider?.close?.();
  }
}

/** The plan messages of every chunk after the first (sent by the first chunk only: no chain). */
export function laterChunks(runId: string, total: number, size: number, minLast = 1): { id: string; body: PlanMessage }[] {
  const out: { id: string; body: PlanMessage }[] = [];
  for (let offset = size; offset < total && total - offset >= minLast; offset += size)
    out.push({ id: `${runId}/plan/${offset}`, body: versioned({ runId, offset }) });
  return out;
}

/** Where the chunk at `offset` ends: `size` items on, or the end when fewer than `minLast` would be left for a last chunk. */
export function chunkEnd(total: number, size: number, offset: number, minLast = 1): number {
  const end = Math.min(offset + size, total);
  return total - end > 0 && total - end < minLast ? total : end;
}

async function planFirst(deps: PlanDeps, message: PlanMessage): Promise<{ manifest: Manifest; loaded: LoadedBenchmark; provider: Provider }> {
  const request = message.request;
  if (request === undefined) throw new HarnessError('planFirst needs the request');
  const [source] = parseBenchmarkSpec(request.benchmark, protocolChoiceOf(request.spec));
  if (source === undefined) throw new InputError(`"${request.benchmark}" names no benchmark`, { field: 'benchmark' });
  const loaded = await (deps.loadSource ?? loadSource)(source, { ...deps.load, ...(request.spec.split ? { split: request.spec.split } : {}) });
  const provider = await deps.createProvider(request.spec.model);
  const spec = request.spec.batch === true ? cloudBatchSpec(request.spec, loaded.benchmark) : request.spec;
  // A cost cap on a model without a price would bound nothing: the run fails before any call.
  // The request's own prices (`remote run --prices/--assume-price`) count, as a local run's flags do.
  const { assumePrice, prices } = request.spec;
  const price = planPrice(
    shippedPriceTable(),
    provider,
    request.spec.maxCostUsd ?? null,
    {
      ...(prices ? { models: prices.models, ...(prices.premiums ? { premiums: prices.premiums } : {}) } : {}),
      assumed: assumePrice ?? null,
    },
    request.createdAt.slice(0, 10),
  );
  let pool = loaded.tasks;
  // The executors run in their own images: their toolchains are not visible from here.
  const context = { runId: message.runId, createdAt: request.createdAt, code: deps.code, packages: deps.packages, toolchains: [] };
  const plan = await planNewRun(loaded, spec, provider, context, {
    store: deps.store,
    // Recorded so every generate worker's cost guard bills at the prices the plan checked.
    settings: (manifest) =>
      recordSettings(manifest, {
        // The cloud's stages do not apply the early-stop rule (each worker sees one item, and no
        // stage counts a run's first items yet): recorded as off, so the manifest says what ran.
        earlyStopOff: true,
        batch: spec.batch === true,
        ...(assumePrice ? { assumedPrice: assumePrice } : {}),
        ...(prices ? { priceOverrides: prices.models } : {}),
        // The price itself (premium and batch price applied): workers bill at it, never resolving it again.
        price: isBilled(provider) ? { billed: true, recorded: recordedPrice(price) } : { billed: false },
      }),
    // What the later stages read, stored before the manifest marks the run planned.
    before: async (planned) => {
      if (spec.batch === true) {
        const min = deps.batchMinRecords?.(spec.model) ?? 1;
        if (planned.items.length < min)
          throw new InputError(
            `batch: a batch job of ${spec.model} takes at least ${min} records, and this run has ${planned.items.length} items; run it without --batch`,
            { field: 'batch' },
          );
      }
      pool = await publishTestFiles(deps.store, message.runId, loaded.tasks);
      await deps.store.put(cloudKeys.tasks(message.runId), serialiseTasks(pool), 'application/x-ndjson');
    },
    keptCopies: [cloudKeys.keptManifest(message.runId)],
  });
  await deps.setItems(message.runId, plan.items.length);
  await deps.ledger.setStatus(message.runId, 'running');
  return { manifest: plan.manifest, loaded: { ...loaded, tasks: pool }, provider };
}

/** The planned dataset as plan saw it, from the snapshot (same hash, so replanning is exact). */
export async function snapshotAsLoaded(store: BlobStore, manifest: Manifest): Promise<LoadedBenchmark> {
  const [source] = parseBenchmarkSpec(manifest.benchmark.spec, protocolChoiceOfManifest(manifest));
  if (source === undefined) throw new HarnessError(`run ${manifest.run_id} names no benchmark`);
  return {
    benchmark: source.benchmark,
    tasks: await readTaskSnapshot(store, manifest.run_id),
    spec: manifest.benchmark.spec,
    source: manifest.benchmark.source,
    sha256: manifest.benchmark.sha256,
  };
}
