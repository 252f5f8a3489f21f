/**
 * The plan stage in the cloud. The first message of a run (offset 0, carrying the request)
 * loads the dataset, plans the run, and writes the manifest and the task snapshot the later
 * stages read; then every message enqueues one chunk of work items and, while items remain,
 * sends the plan message of the next chunk. So 100k items never wait on one invocation, and
 * a redelivered chunk only re-sends items the ledger will count once.
 */
import { InputError } from '#core/errors.ts';
import type { Provider } from '#core/models/provider.ts';
import type { BlobStore, RunLedger, SetRunItems, WorkQueue } from '#core/ports.ts';
import { storedJson } from '#core/run/documents.ts';
import { itemId, keys } from '#core/run/keys.ts';
import { protocolChoiceOfManifest, type Manifest } from '#core/run/manifest.ts';
import { protocolChoiceOf } from '#core/run/spec.ts';
import { planRun, replanItems, type LoadedBenchmark, type WorkItem } from '#core/run/plan.ts';
import { parseBenchmarkSpec } from '#core/benchmarks/spec.ts';
import { HarnessError } from '#core/errors.ts';
import { isBilled, loadPriceTable, priceForRun } from '#providers/index.ts';
import { loadSource, type LoadOptions } from '../shared/load-benchmark.ts';
import { cloudKeys, readTaskSnapshot, serialiseTasks } from './context.ts';
import { readManifest } from '../shared/stored-documents.ts';
import { publishTestFiles } from './test-files.ts';
import { versioned, type CloudWorkItem, type PlanMessage } from './messages.ts';
import { writePartManifest } from './record-parts.ts';

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
}

export type PlanOutcome =
  | { status: 'enqueued'; runId: string; offset: number; sent: number; total: number; next: number | null }
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
    const chunk = items.slice(message.offset, message.offset + size);
    // One records part per chunk: its manifest first, so a part is never counted before it is described.
    const index = Math.floor(message.offset / size);
    await writePartManifest(deps.store, runId, index, chunk);
    const body = (item: WorkItem, slot: number): CloudWorkItem => versioned({ ...item, part: { index, slot, size: chunk.length } });
    await deps.generateQueue.send(chunk.map((item, slot) => ({ id: itemId(runId, item.taskId, item.sample), body: body(item, slot) })));
    const next = message.offset + size < items.length ? message.offset + size : null;
    if (next !== null) await deps.planQueue.send([{ id: `${runId}/plan/${next}`, body: versioned({ runId, offset: next }) }]);
    return { status: 'enqueued', runId, offset: message.offset, sent: chunk.length, total: items.length, next };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    await deps.ledger.setStatus(runId, 'failed', error.message);
    return { status: 'failed', runId, reason: error.message };
  } finally {
    await provider?.close?.();
  }
}

async function planFirst(deps: PlanDeps, message: PlanMessage): Promise<{ manifest: Manifest; loaded: LoadedBenchmark; provider: Provider }> {
  const request = message.request;
  if (request === undefined) throw new HarnessError('planFirst needs the request');
  const [source] = parseBenchmarkSpec(request.benchmark, protocolChoiceOf(request.spec));
  if (source === undefined) throw new InputError(`"${request.benchmark}" names no benchmark`, { field: 'benchmark' });
  const loaded = await loadSource(source, { ...deps.load, ...(request.spec.split ? { split: request.spec.split } : {}) });
  const provider = await deps.createProvider(request.spec.model);
  // A cost cap on a model without a price would bound nothing: the run fails before any call.
  if (isBilled(provider)) {
    priceForRun(await loadPriceTable(undefined), provider.model, { capUsd: request.spec.maxCostUsd ?? null });
  }
  const plan = await planRun(loaded, request.spec, provider, {
    runId: message.runId,
    createdAt: request.createdAt,
    code: deps.code,
    packages: deps.packages,
    // The executors run in their own images; they are not visible from here.
    toolchains: [],
  });
  const pool = await publishTestFiles(deps.store, message.runId, loaded.tasks);
  await deps.store.put(cloudKeys.tasks(message.runId), serialiseTasks(pool), 'application/x-ndjson');
  const manifestText = storedJson(plan.manifest, 2);
  await deps.store.put(cloudKeys.keptManifest(message.runId), manifestText, 'application/json');
  await deps.store.put(keys.manifest(message.runId), manifestText, 'application/json');
  await deps.setItems(message.runId, plan.items.length);
  await deps.ledger.setStatus(message.runId, 'running');
  return { manifest: plan.manifest, loaded: { ...loaded, tasks: pool }, provider };
}

/** The planned dataset as plan saw it, from the snapshot (same hash, so replanning is exact). */
async function snapshotAsLoaded(store: BlobStore, manifest: Manifest): Promise<LoadedBenchmark> {
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
