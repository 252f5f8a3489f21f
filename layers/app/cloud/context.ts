/**
 * The RunContext of a cloud stage, rebuilt from what plan wrote (the manifest and the task
 * snapshot) and cached per container per run, so a warm Lambda reads them once per run, not
 * once per message.
 */
import { z } from 'zod';
import { parseBenchmarkSpec } from '#core/benchmarks/index.ts';
import { HarnessError } from '#core/errors.ts';
import type { Provider } from '#core/models/index.ts';
import type { BlobStore, Executor, RunLedger } from '#core/ports.ts';
import { newRunState, type EngineDeps, type RunContext, type RunDefinition } from '#core/run/index.ts';
import { parseStoredLines, schemaVersionField, storedJson } from '#core/run/index.ts';
import { keys } from '#core/run/index.ts';
import { TaskSchema } from '#core/run/index.ts';
import { protocolChoiceOfManifest, type Manifest } from '#core/run/index.ts';
import type { Task } from '#core/types.ts';
import { projectionOf } from '../shared/cost-projection.ts';
import { readManifest, readManifestAt, type DocumentSource } from '#core/run/index.ts';
import type { ToolchainRecorder } from './toolchain-record.ts';

/** Keys the cloud stages add to DESIGN §5. */
export const cloudKeys = {
  /** Every task of the run's dataset (the few-shot pool too), one JSON object per line. */
  tasks: (runId: string) => `runs/${runId}/tasks.jsonl`,
  /**
   * Copies of the manifest and the summary beside the results tables: `runs/` holds the raw
   * per-item work and may expire (lifecycle rules), `results/` is kept, so the API answers for
   * a run long after its items are gone.
   */
  keptManifest: (runId: string) => `results/runs/${runId}/manifest.json`,
  keptSummary: (runId: string) => `results/runs/${runId}/summary.json`,
};

/** The manifest for readers (the API): the run's own, else the kept copy. */
export async function readKeptManifest(store: DocumentSource, runId: string): Promise<Manifest | undefined> {
  return (await readManifest(store, runId)) ?? (await readManifestAt(store, cloudKeys.keptManifest(runId)));
}

/** What a stage needs to build contexts. */
export interface ContextSource {
  store: BlobStore;
  ledger: RunLedger;
  clock: () => Date;
  /** Builds the run's provider (generate); omitted by stages that never call a model. */
  provider?: (manifest: Manifest) => Promise<Provider>;
  /** The executor of this container (execute); created once, shared by every run. */
  executor?: () => Promise<Executor>;
  /** Records the toolchains the executor judges each run with (execute; toolchain-record.ts). */
  toolchains?: ToolchainRecorder;
  costOf?: (manifest: Manifest) => Promise<RunContext['costOf']>;
  /** A call throttled past its retries goes back to the queue (default; engine.ts `requeueThrottled`); false records it SE. */
  requeueThrottled?: boolean;
}

/** A provider that refuses to generate: stages without a model (execute) never call it. */
const NO_PROVIDER: Provider = {
  id: 'none',
  kind: 'none',
  model: 'none',
  generate: () => Promise.reject(new HarnessError('this stage calls no model')),
};

/** A line of the snapshot: a task stamped with its schema_version (absent: written before versions, version 1). */
const SnapshotLineSchema = z.intersection(TaskSchema, z.object({ schema_version: schemaVersionField }));

/**
 * The run's tasks as plan stored them, each line validated.
 * @throws CorruptRecordError naming the key, line and field of a damaged line (a harness fault: the message is retried, then dead-lettered).
 */
export async function readTaskSnapshot(store: BlobStore, runId: string): Promise<Task[]> {
  const text = await store.getText(cloudKeys.tasks(runId));
  if (text === undefined) throw new HarnessError(`run ${runId} has no task snapshot at ${store.locate(cloudKeys.tasks(runId))}`);
  return parseStoredLines(SnapshotLineSchema, text, store.locate(cloudKeys.tasks(runId))).map(({ schema_version: _version, ...task }) => task as Task);
}

export function serialiseTasks(tasks: readonly Task[]): string {
  return tasks.map((task) => storedJson(task)).join('\n') + '\n';
}

/**
 * Runs whose contexts a warm container keeps (issue 35). A context holds the run's whole task
 * pool; a container that served every run of a nightly sweep kept them all (the "run-context
 * cache never evicts" leftover). A few runs in flight at once stay cached; a run met again
 * after eviction is read again (two S3 GETs), never wrong: a cloud run's manifest and task
 * snapshot are written once, by plan, before any of its items is sent.
 */
export const CONTEXT_CACHE_RUNS = 8;

/**
 * Run contexts by run id, built on first use, so a warm Lambda reads a run's manifest and task
 * snapshot once, not once per message. At most `maxRuns` are kept, the least recently used
 * evicted first. A failed build is forgotten, so the next message retries it.
 */
export class RunContextCache {
  readonly #source: ContextSource;
  readonly #maxRuns: number;
  /** In use order: the least recently used first (a Map iterates in insertion order). */
  readonly #contexts = new Map<string, Promise<RunContext>>();

  constructor(source: ContextSource, options: { maxRuns?: number } = {}) {
    this.#source = source;
    this.#maxRuns = Math.max(1, options.maxRuns ?? CONTEXT_CACHE_RUNS);
  }

  get(runId: string): Promise<RunContext> {
    let context = this.#contexts.get(runId);
    if (context !== undefined) {
      this.#contexts.delete(runId);
      this.#contexts.set(runId, context);
      return context;
    }
    context = this.#build(runId);
    const built = context;
    built.catch(() => {
      if (this.#contexts.get(runId) === built) this.#contexts.delete(runId);
    });
    this.#contexts.set(runId, built);
    for (const oldest of this.#contexts.keys()) {
      if (this.#contexts.size <= this.#maxRuns) break;
      this.#contexts.delete(oldest);
    }
    return built;
  }

  /** Run ids cached, least recently used first. */
  cachedRuns(): string[] {
    return [...this.#contexts.keys()];
  }

  async #build(runId: string): Promise<RunContext> {
    const { store, ledger, clock } = this.#source;
    const manifest = await readManifest(store, runId);
    if (manifest === undefined) throw new HarnessError(`run ${runId} has no manifest in ${store.locate(keys.manifest(runId))}`);
    const pool = await readTaskSnapshot(store, runId);
    const [source] = parseBenchmarkSpec(manifest.benchmark.spec, protocolChoiceOfManifest(manifest));
    if (source === undefined) throw new HarnessError(`run ${runId} names no benchmark`);
    const costOf = this.#source.costOf ? await this.#source.costOf(manifest) : undefined;
    const provider = this.#source.provider ? await this.#source.provider(manifest) : NO_PROVIDER;
    const own = this.#source.executor ? await this.#source.executor() : undefined;
    const recorder = this.#source.toolchains;
    const executor = own && recorder ? recorder.over(own, runId) : own;
    const deps: EngineDeps = {
      store,
      ledger,
      provider,
      ...(executor ? { executor } : {}),
      clock,
      ...(costOf ? { costOf, projectCost: projectionOf(costOf) } : {}),
      requeueThrottled: this.#source.requeueThrottled ?? true,
    };
    const definition: RunDefinition = { manifest, benchmark: source.benchmark, tasks: new Map(pool.map((task) => [task.id, task])), pool };
    // The cost guard reserves every call in the ledger (trySpend): one counter per run for all containers.
    return { ...deps, ...definition, ...newRunState(deps, definition) };
  }
}
