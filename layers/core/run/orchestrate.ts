/**
 * A run, from its spec to its summary, over ports (run-ports.ts): load → plan → generate →
 * score → record → aggregate. Core holds the order and the rules between the steps — the
 * price is checked before any model call, a run's manifest is stored before its ledger row,
 * the capability check's calls are billed, the executor is checked before model code runs,
 * a stop or failure is written to the ledger, the executor and the model are released
 * whatever happens — and a driver only wires adapters: `runLocal` is {@link startRuns} over
 * the local adapters, `resumeLocal` is {@link resumeRun}.
 */
import { EARLY_STOP_FIRST } from './early-stop.ts';
import { recordSettings } from './lifecycle.ts';
import { parseBenchmarkSpec } from '../benchmarks/index.ts';
import { InputError } from '../errors.ts';
import { toolchainOptionsByLanguage } from '../languages/index.ts';
import type { Provider } from '../models/index.ts';
import type { BlobStore, Executor } from '../ports.ts';
import { aggregateRun, parseRunSummary } from '../report/index.ts';
import { newRunState, type EngineDeps, type RunContext, type RunDefinition } from './engine.ts';
import { keys } from './keys.ts';
import { protocolChoiceOfManifest, type Manifest } from './manifest.ts';
import { readManifest, writeManifest } from './manifest-store.ts';
import { runPipeline } from './pipeline.ts';
import { planRun, replanItems, type LoadedBenchmark, type PlanContext, type RunPlan, type WorkItem } from './plan.ts';
import type { ExecutorLease, RunExecution, RunPorts, RunResult } from './run-ports.ts';
import { protocolChoiceOf, type RunSpec } from './spec.ts';

/**
 * Starts one run per benchmark source named by `spec.benchmark` (`sample` names several) and
 * per language asked for, each planned, recorded and run to its end.
 * @example
 * const [result] = await startRuns(parseRunSpec({ benchmark: 'sample/abricot', model: 'reference' }), ports);
 */
export async function startRuns<E extends Executor>(spec: RunSpec, ports: RunPorts<E>): Promise<RunResult[]> {
  const sources = parseBenchmarkSpec(spec.benchmark, protocolChoiceOf(spec), ports.catalog.benchmarks);
  const results: RunResult[] = [];
  for (const source of sources) {
    const { loaded, languages } = await ports.catalog.load(source, spec.split, spec);
    for (const language of languages) {
      const key = `${source.spec}|${language ?? ''}`;
      const existing = ports.observer.runs?.existing(key);
      results.push(existing ? await resumeOrSummary(existing, ports) : await startRun(spec, loaded, language, languages, key, ports));
    }
  }
  return results;
}

/**
 * Continues a run that was killed or stopped: only the items not yet recorded run.
 * `maxCostUsd` raises (or sets) the cap, which is how a run stopped by `--max-cost` continues.
 */
export async function resumeRun<E extends Executor>(
  runId: string,
  ports: RunPorts<E>,
  overrides: { maxCostUsd?: number; earlyStop?: false } = {},
): Promise<RunResult> {
  const manifest = await requireManifest(runId, { store: ports.store, noSuchRun: ports.observer.noSuchRun });
  if (overrides.maxCostUsd !== undefined) manifest.max_cost_usd = overrides.maxCostUsd;
  // `--resume <run> --no-early-stop`: a run the rule stopped (or would stop again, its first
  // items failing alike on purpose) runs every remaining item; recorded like --no-early-stop.
  if (overrides.earlyStop === false) manifest.early_stop = null;
  if (overrides.maxCostUsd !== undefined || overrides.earlyStop === false) await writeManifest(ports.store, manifest);
  const [source] = parseBenchmarkSpec(manifest.benchmark.spec, protocolChoiceOfManifest(manifest));
  if (!source) throw new InputError(`run ${runId} names no benchmark`);
  const { loaded } = await ports.catalog.load(source, manifest.split ?? undefined);
  const { provider } = await ports.models.open(manifest.model.spec, { recorded: manifest.provider_options });
  let lease: ExecutorLease<E>;
  try {
    await provider.prepare?.(new Set(loaded.tasks.map((t) => t.id)));
    // Checked before model code runs: a resumed run's executor too.
    lease = await ports.executors.lease(loaded.benchmark, provider);
  } catch (error) {
    await provider.close?.();
    throw error;
  }
  return executeRun(replanItems(manifest, loaded, provider), loaded, provider, ports, lease, { recorded: manifest.provider_options });
}

/**
 * The plan step of a new run, for every driver (a local run, the cloud's plan stage): the
 * plan, the driver's settings recorded in its manifest, the driver's own documents stored
 * (`before`: the cloud's task snapshot and test files), then the manifest — last, as the
 * mark that the run is planned (a redelivered cloud plan message finds it and plans nothing).
 * The caller has checked the price: no model call comes before it.
 */
export async function planNewRun(
  loaded: LoadedBenchmark,
  spec: RunSpec,
  provider: Provider,
  context: PlanContext,
  record: { store: Pick<BlobStore, 'put'>; settings(manifest: Manifest): void; before?(plan: RunPlan): Promise<void>; keptCopies?: readonly string[] },
): Promise<RunPlan> {
  const plan = await planRun(loaded, spec, provider, context);
  record.settings(plan.manifest);
  await record.before?.(plan);
  await writeManifest(record.store, plan.manifest, record.keptCopies);
  return plan;
}

/** A run's manifest; the driver's error (InputError naming the run) when the store has none. */
export async function requireManifest(runId: string, ports: { store: RunPorts['store']; noSuchRun: RunPorts['observer']['noSuchRun'] }): Promise<Manifest> {
  const manifest = await readManifest(ports.store, runId);
  if (!manifest) throw ports.noSuchRun(runId);
  return manifest;
}

/** A sweep's run seen again: its summary when it completed, else it is resumed. */
async function resumeOrSummary<E extends Executor>(runId: string, ports: RunPorts<E>): Promise<RunResult> {
  const run = await ports.ledger.getRun(runId);
  const text = run?.status === 'completed' ? await ports.store.getText(keys.summary(runId)) : undefined;
  if (!text) return resumeRun(runId, ports);
  const manifest = await requireManifest(runId, { store: ports.store, noSuchRun: ports.observer.noSuchRun });
  return { ...parseRunSummary(text, ports.store.locate(keys.summary(runId))), status: 'completed', language: manifest.language };
}

/** Plans a new run (price, executor, toolchains, plan), records it (manifest, then ledger row), then runs it. */
async function startRun<E extends Executor>(
  spec: RunSpec,
  loaded: LoadedBenchmark,
  language: string | undefined,
  languages: readonly (string | undefined)[],
  key: string,
  ports: RunPorts<E>,
): Promise<RunResult> {
  const now = ports.clock();
  const run = await ports.newRun({ ...spec, ...(language ? { language } : {}) }, loaded, language, languages, now);
  const { runId, spec: runSpec } = run;
  // Refused before the capability check or any item calls the model.
  const { provider, price } = await ports.models.open(spec.model, { capUsd: spec.maxCostUsd ?? null });
  // The run's toolchain options per language, as its jobs will carry them (plan.ts records the same setting).
  const toolchainOptions = toolchainOptionsByLanguage({
    kotlin_language_version: spec.kotlinLanguageVersion ?? loaded.benchmark.defaults.kotlinLanguageVersion ?? null,
  });
  let lease: ExecutorLease<E>;
  try {
    // One executor per run (or a sweep's shared one), checked before model code runs: it records
    // the toolchains, starts its slow set-up while the run is planned and generated, then scores
    // (released when the run ends).
    lease = await ports.executors.lease(loaded.benchmark, provider);
  } catch (error) {
    await provider.close?.();
    throw error;
  }
  let plan: RunPlan;
  try {
    // Probed once the items are known, for their languages only (the manifest keeps those: plan.ts).
    const executor = lease.executor;
    const toolchains = executor ? (languages: ReadonlySet<string>) => executor.toolchains(toolchainOptions, languages) : [];
    const context = { runId, createdAt: now.toISOString(), ...run.versions, toolchains };
    const settings = (manifest: Manifest): void =>
      recordSettings(manifest, {
        ...run.settings,
        // A sweep cell marked batch (`--batch-model`, a nightly sweep's `batch`) generates as a batch, as `--batch` does.
        ...(runSpec.batch === true ? { batch: true } : {}),
        price: price ? { billed: true, recorded: price.recorded } : { billed: false },
      });
    plan = await planNewRun(loaded, runSpec, provider, context, { store: ports.store, settings });
  } catch (error) {
    await lease.release();
    await provider.close?.();
    throw error;
  }
  prepareExecutor(lease.executor, plan);
  await ports.ledger.createRun({
    runId,
    benchmark: loaded.benchmark.id,
    model: provider.model,
    status: 'planned',
    items: plan.items.length,
    createdAt: now.toISOString(),
  });
  await ports.observer.runs?.created(key, runId);
  // The capability check's calls were billed too.
  const probe = plan.manifest.likert_scoring?.probeUsage;
  if (probe && price) await ports.ledger.trySpend(runId, price.cost(probe), null);
  return executeRun(plan, loaded, provider, ports, lease, { prepared: true });
}

/** Runs a planned run's items through the pipeline, then aggregates it (or records why it stopped or failed). */
async function executeRun<E extends Executor>(
  plan: RunPlan,
  loaded: LoadedBenchmark,
  provider: Provider,
  ports: RunPorts<E>,
  lease: ExecutorLease<E>,
  options: { prepared?: boolean; recorded?: Manifest['provider_options'] },
): Promise<RunResult> {
  const { manifest } = plan;
  const runId = manifest.run_id;
  const onEvent = ports.observer.onEvent;
  let execution: RunExecution;
  try {
    execution = await ports.execution(plan, loaded, options.recorded);
  } catch (error) {
    await lease.release();
    await provider.close?.();
    onEvent?.({ type: 'ended', runId });
    throw error;
  }
  if (!options.prepared) prepareExecutor(lease.executor, plan);
  const languageOf = languageOfItems(plan);
  const deps: EngineDeps = {
    store: ports.store,
    ledger: ports.ledger,
    provider,
    ...(lease.executor ? { executor: lease.executor } : {}),
    clock: ports.clock,
    ...execution.costs,
    onEvent: (e) => onEvent?.({ ...e, language: languageOf(e.item), runId }),
  };
  const definition: RunDefinition = { manifest, benchmark: loaded.benchmark, tasks: new Map(plan.tasks.map((t) => [t.id, t])), pool: loaded.tasks };
  const ctx: RunContext = { ...deps, ...definition, ...newRunState(deps, definition) };
  try {
    await ports.ledger.setStatus(runId, 'running');
    const done = (await ports.store.list(keys.itemsPrefix(runId))).length;
    onEvent?.({
      type: 'planned',
      runId,
      total: plan.items.length,
      done,
      benchmark: manifest.benchmark.id,
      remaining: remainingByLanguage(plan, languageOf),
    });
    const result = await runPipeline(ctx, plan.items, execution.pipeline(ctx));
    if (result.stoppedReason) {
      await ports.ledger.setStatus(runId, 'stopped', result.stoppedReason);
      // The manifest says the run stopped itself, and why (the ledger's status says it too).
      if (ctx.stop.early)
        await writeManifest(ports.store, { ...manifest, early_stop: { first: manifest.early_stop?.first ?? EARLY_STOP_FIRST, stopped: result.stoppedReason } });
      const stored = (await ports.store.list(keys.itemsPrefix(runId))).length;
      const head = { run_id: runId, benchmark: manifest.benchmark.id, model: manifest.model.name, items: plan.items.length };
      return { status: 'stopped', ...head, recorded: stored, reason: result.stoppedReason, language: manifest.language };
    }
    const summary = await aggregateRun({ store: ports.store, ledger: ports.ledger, clock: ports.clock }, manifest, execution.extraMetrics);
    return { ...summary, language: manifest.language };
  } catch (error) {
    await ports.ledger.setStatus(runId, 'failed', (error as Error).message);
    throw error;
  } finally {
    await lease.release();
    await provider.close?.();
    onEvent?.({ type: 'ended', runId });
  }
}

/** Starts the executor's slow set-up (the Kotlin compile server) for the plan's languages, in the background. */
function prepareExecutor(executor: Executor | undefined, plan: RunPlan): void {
  executor?.prepare?.([...new Set(plan.items.map((i) => i.language).filter((l): l is string => l !== undefined))]);
}

/** The language of each item of a plan (`item` for benchmarks without one): what the ETA learns by. */
function languageOfItems(plan: RunPlan): (item: WorkItem) => string {
  const byTask = new Map(plan.tasks.map((t) => [t.id, 'language' in t && typeof t.language === 'string' ? t.language : undefined]));
  return (item) => item.language ?? plan.manifest.language ?? byTask.get(item.taskId) ?? 'item';
}

/** Items left to run per language. */
function remainingByLanguage(plan: RunPlan, languageOf: (item: WorkItem) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of plan.items) {
    const language = languageOf(item);
    out[language] = (out[language] ?? 0) + 1;
  }
  return out;
}
