/**
 * A run on this machine: plan → generate → score → record → aggregate over the local
 * adapters (filesystem store, journal ledger, in-process queues, the sandbox executor).
 */
import { availableParallelism } from 'node:os';
import type { AnyBenchmark } from '#core/benchmarks/benchmark.ts';
import { scorerByKind } from '#core/scorers/index.ts';
import { InputError, RunStopped } from '#core/errors.ts';
import { toolchainOptionsByLanguage } from '#core/languages/index.ts';
import type { Provider } from '#core/models/provider.ts';
import type { SandboxExecutor } from '#sandbox/index.ts';
import { assertMayExecute } from './trust.ts';
import { aggregateRun, parseRunSummary, type RunSummaryDocument } from '#core/run/aggregate.ts';
import { computeExtraMetrics } from '#core/benchmarks/extra-metrics.ts';
import type { MetricRow, RunRecord } from '#core/types.ts';
import { loadBenchmarkResources } from '#sources/benchmark-resources.ts';
import { newRunState, type EngineDeps, type EngineEvent, type GeneratedItem, type RunContext, type RunDefinition } from '#core/run/engine.ts';
import { keys } from '#core/run/keys.ts';
import { protocolChoiceOfManifest, type Manifest } from '#core/run/manifest.ts';
import { storedJson } from '#core/run/documents.ts';
import { runPipeline } from '#core/run/pipeline.ts';
import { planRun, replanItems, type LoadedBenchmark, type RunPlan, type WorkItem } from '#core/run/plan.ts';
import { protocolChoiceOf, type RunSpec } from '#core/run/spec.ts';
import { InProcessWorkQueue } from '#local/index.ts';
import { costAt, isBilled, loadUserPrices, shippedPriceTable, type ModelPrice, type ProviderOptions } from '#providers/index.ts';
import type { Home } from './home.ts';
import { loadSource } from '../shared/load-benchmark.ts';
import { parseBenchmarkSpec } from '#core/benchmarks/spec.ts';
import type { BenchmarkRegistry } from '#core/benchmarks/registry.ts';
import { createProvider } from '../shared/create-provider.ts';
import { codeVersion, packageVersions } from '../shared/versions.ts';
import { readManifest } from '../shared/stored-documents.ts';
import { languagesFor, newRunId, runIdPrefix } from '../shared/run-ids.ts';
import { planPrice, projectionOf, recordedPrice, runCostOf } from '../shared/cost-projection.ts';
import type { ModelLimits } from './model-limits.ts';
import { SharedSandbox } from './shared-sandbox.ts';
import type { ItemGate } from '#core/run/pipeline.ts';
import { batchRunSpec, batchGenerator, type BatchEvent, type BatchOptions } from './batch-run.ts';

export { SharedSandbox };

export interface LocalRunOptions {
  home: Home;
  packageRoot: string;
  providerOptions?: ProviderOptions;
  /** Scoring concurrency (executor jobs); default = cores. */
  jobs?: number;
  /** User price table overriding the shipped one. */
  pricesPath?: string;
  /** `--assume-price`: the price of a model the table lacks (recorded in the manifest). */
  assumePrice?: ModelPrice;
  clock?: () => Date;
  onEvent?: (event: (EngineEvent & { language: string; runId: string }) | PlannedEvent | EndedEvent | BatchEvent) => void;
  /** `--batch`: new runs generate through the provider's batch API (a resumed run keeps the mode it was planned with). */
  batch?: BatchOptions;
  env?: NodeJS.ProcessEnv;
  /** Execute model-written code even where the sandbox exposes credentials, files or network. */
  trustGeneratedCode?: boolean;
  /** One sandbox shared by several runs (a sweep): kept open after each run. */
  sandbox?: SharedSandbox;
  /** A sweep's bound on items in flight across its grid. */
  gate?: ItemGate;
  /** A sweep's per-model limits on calls in flight, shared by the runs of one model. */
  modelLimits?: ModelLimits;
  /**
   * A sweep's bookkeeping, per run it would start (key: dataset spec and language): the id
   * of a run already started for that key (it is resumed, or its summary returned when it
   * completed), and a hook called with each new run's id before any of its work starts.
   */
  runs?: { existing(key: string): string | undefined; created(key: string, runId: string): Promise<void> };
  /** The benchmarks `spec.benchmark` may name (default: the registry). */
  benchmarks?: BenchmarkRegistry;
}

/** A run is about to do its work: `remaining` counts the items still to run per language. */
export interface PlannedEvent {
  type: 'planned';
  runId: string;
  total: number;
  done: number;
  benchmark: string;
  remaining: Record<string, number>;
}

/** A run stopped doing work (completed, stopped or failed). */
export interface EndedEvent {
  type: 'ended';
  runId: string;
}

export type LocalRunResult =
  | ({ status: 'completed'; language?: string | null } & RunSummaryDocument)
  | { status: 'stopped'; run_id: string; benchmark: string; model: string; items: number; recorded: number; reason: string; language?: string | null };

/** A run's executor, and whether the run owns it (closes it) or uses the sweep's. */
interface RunExecutor {
  executor?: SandboxExecutor;
  owned: boolean;
}

async function executorFor(benchmark: AnyBenchmark, shared?: SharedSandbox): Promise<RunExecutor> {
  if (!scorerByKind(benchmark.scorer).needsExecutor) return { owned: false };
  if (shared) return { executor: await shared.get(), owned: false };
  const sandbox = await import('#sandbox/index.ts');
  return { executor: await sandbox.createSandboxExecutor(), owned: true };
}

/** Closes the run's own executor (the sweep's stays open for its other cells). */
async function releaseExecutor(run: RunExecutor): Promise<void> {
  if (run.owned) await run.executor?.close();
}

/** The model spec's provider, under the sweep's shared limit of that model when there is one. */
async function openProvider(spec: string, providerOptions: ProviderOptions | undefined, opts: LocalRunOptions): Promise<Provider> {
  const provider = await createProvider(spec, providerOptions);
  return opts.modelLimits ? opts.modelLimits.wrap(spec, provider, providerOptions?.concurrency) : provider;
}

/** The run's price (the user's prices first), refusing a cost cap on an unpriced model before any call. */
async function runPrice(
  provider: Provider,
  capUsd: number | null,
  assumed: ModelPrice | null | undefined,
  opts: LocalRunOptions,
): Promise<ModelPrice | undefined> {
  return planPrice(shippedPriceTable(), provider, capUsd, await loadUserPrices(opts.pricesPath, assumed));
}

async function costFunctions(manifest: Manifest, opts: LocalRunOptions): Promise<Pick<RunContext, 'costOf' | 'projectCost'>> {
  if (!isBilled(manifest.model)) return {};
  // A manifest written before prices were recorded: the resume's --prices over its own overrides' absence.
  const user = manifest.price ? {} : await loadUserPrices(opts.pricesPath);
  const priced = user.models ? { ...manifest, price_overrides: { ...user.models, ...manifest.price_overrides } } : manifest;
  const costOf = runCostOf(shippedPriceTable(), priced, manifest.max_cost_usd);
  return costOf ? { costOf, projectCost: projectionOf(costOf) } : {};
}

/** Starts the executor's slow set-up (the Kotlin compile server) for the plan's languages, in the background. */
function prepareExecutor(executor: SandboxExecutor | undefined, plan: RunPlan): void {
  executor?.prepare?.([...new Set(plan.items.map((i) => i.language).filter((l): l is string => l !== undefined))]);
}

async function execute(plan: RunPlan, loaded: LoadedBenchmark, provider: Provider, opts: LocalRunOptions, prepared?: RunExecutor): Promise<LocalRunResult> {
  const { home } = opts;
  const clock = opts.clock ?? (() => new Date());
  const { manifest } = plan;
  const runExecutor = prepared ?? (await executorFor(loaded.benchmark, opts.sandbox));
  const { executor } = runExecutor;
  try {
    assertMayExecute(executor, provider, opts.trustGeneratedCode ?? false);
  } catch (error) {
    await releaseExecutor(runExecutor);
    await provider.close?.();
    opts.onEvent?.({ type: 'ended', runId: manifest.run_id });
    throw error;
  }
  if (!prepared) prepareExecutor(executor, plan);
  const languageOf = languageOfItems(plan);
  const deps: EngineDeps = {
    store: home.store,
    ledger: home.ledger,
    provider,
    ...(executor ? { executor } : {}),
    clock,
    ...(await costFunctions(manifest, opts)),
    onEvent: (e) => opts.onEvent?.({ ...e, language: languageOf(e.item), runId: manifest.run_id }),
  };
  const definition: RunDefinition = { manifest, benchmark: loaded.benchmark, tasks: new Map(plan.tasks.map((t) => [t.id, t])), pool: loaded.tasks };
  const ctx: RunContext = { ...deps, ...definition, ...newRunState(deps, definition) };
  const jobs = opts.jobs ?? availableParallelism();
  try {
    await home.ledger.setStatus(manifest.run_id, 'running');
    const done = (await home.store.list(keys.itemsPrefix(manifest.run_id))).length;
    opts.onEvent?.({
      type: 'planned',
      runId: manifest.run_id,
      total: plan.items.length,
      done,
      benchmark: manifest.benchmark.id,
      remaining: remainingByLanguage(plan, languageOf),
    });
    const generateAll = manifest.generation === 'batch' ? batchGenerator(ctx, opts) : undefined;
    const result = await runPipeline(ctx, plan.items, {
      ...(generateAll ? { generateAll } : {}),
      generateQueue: new InProcessWorkQueue<WorkItem>({ maxAttempts: 1 }),
      scoreQueue: new InProcessWorkQueue<GeneratedItem>({ maxAttempts: 1, capacity: Math.max(4, jobs * 4) }),
      generateConcurrency: opts.providerOptions?.concurrency ?? provider.concurrency ?? 4,
      scoreConcurrency: jobs,
      ...(opts.gate ? { gate: opts.gate } : {}),
    });
    if (result.stoppedReason) {
      await home.ledger.setStatus(manifest.run_id, 'stopped', result.stoppedReason);
      const recorded = (await home.store.list(keys.itemsPrefix(manifest.run_id))).length;
      return {
        status: 'stopped',
        run_id: manifest.run_id,
        benchmark: manifest.benchmark.id,
        model: manifest.model.name,
        items: plan.items.length,
        recorded,
        reason: result.stoppedReason,
        language: manifest.language,
      };
    }
    const summary = await aggregateRun({ store: home.store, ledger: home.ledger, clock }, manifest, (records) =>
      extraMetrics(records, plan, loaded, manifest, home),
    );
    return { ...summary, language: manifest.language };
  } catch (error) {
    await home.ledger.setStatus(manifest.run_id, 'failed', (error as Error).message);
    throw error;
  } finally {
    await releaseExecutor(runExecutor);
    await provider.close?.();
    opts.onEvent?.({ type: 'ended', runId: manifest.run_id });
  }
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

/** The benchmark's own metrics (RoCode: code-switching of the generated code beside the reference solutions). */
function extraMetrics(records: readonly RunRecord[], plan: RunPlan, loaded: LoadedBenchmark, manifest: Manifest, home: Home): Promise<MetricRow[]> {
  const head = { run_id: manifest.run_id, benchmark: manifest.benchmark.id, model: manifest.model.name };
  return computeExtraMetrics(loaded.benchmark, { records, tasks: plan.tasks, head, seed: manifest.seed }, (needs) =>
    loadBenchmarkResources(needs, { cacheDir: home.cacheDir }),
  );
}

/** Starts one run per benchmark source named by `spec.benchmark` (`sample` names several). */
export async function runLocal(spec: RunSpec, opts: LocalRunOptions): Promise<LocalRunResult[]> {
  const clock = opts.clock ?? (() => new Date());
  const sources = parseBenchmarkSpec(spec.benchmark, protocolChoiceOf(spec), opts.benchmarks);
  const results: LocalRunResult[] = [];
  for (const source of sources) {
    const loaded = await loadSource(source, {
      packageRoot: opts.packageRoot,
      cacheDir: opts.home.cacheDir,
      env: opts.env ?? process.env,
      ...(spec.split ? { split: spec.split } : {}),
    });
    const languages = languagesFor(spec, loaded.benchmark, loaded.tasks);
    for (const language of languages) {
      const key = `${source.spec}|${language ?? ''}`;
      const existing = opts.runs?.existing(key);
      if (existing) {
        results.push(await resumeOrSummary(existing, opts));
        continue;
      }
      const runSpec: RunSpec = batchRunSpec({ ...spec, ...(language ? { language } : {}) }, loaded.benchmark, opts);
      const provider = await openProvider(spec.model, opts.providerOptions, opts);
      // Refused before the capability check or any item calls the model.
      const price = await runPrice(provider, spec.maxCostUsd ?? null, opts.assumePrice, opts);
      const now = clock();
      const runId = newRunId(runIdPrefix(loaded.benchmark.id, language, languages), now);
      // One executor per run (or the sweep's shared one): it records the toolchains, starts its
      // slow set-up while the run is planned and generated, then scores (execute closes it if owned).
      const runExecutor = await executorFor(loaded.benchmark, opts.sandbox);
      // The run's toolchain options per language, as its jobs will carry them (plan.ts records the same setting).
      const toolchainOptions = toolchainOptionsByLanguage({
        kotlin_language_version: spec.kotlinLanguageVersion ?? loaded.benchmark.defaults.kotlinLanguageVersion ?? null,
      });
      let plan: RunPlan;
      try {
        assertMayExecute(runExecutor.executor, provider, opts.trustGeneratedCode ?? false);
        // Probed once the items are known, for their languages only (the manifest keeps those: plan.ts).
        const executor = runExecutor.executor;
        const toolchains = executor ? (languages: ReadonlySet<string>) => executor.toolchains(toolchainOptions, languages) : [];
        plan = await planRun(loaded, runSpec, provider, {
          runId,
          createdAt: now.toISOString(),
          code: codeVersion(opts.packageRoot),
          packages: packageVersions(opts.packageRoot),
          toolchains,
        });
      } catch (error) {
        await releaseExecutor(runExecutor);
        await provider.close?.();
        throw error;
      }
      prepareExecutor(runExecutor.executor, plan);
      const { region, endpointUrl, apiKeyEnv, timeoutMs, concurrency } = opts.providerOptions ?? {};
      const providerOptions = { region, endpointUrl, apiKeyEnv, timeoutMs, concurrency };
      plan.manifest.provider_options = JSON.parse(JSON.stringify(providerOptions)) as Manifest['provider_options'];
      if (opts.batch?.newRuns) plan.manifest.generation = 'batch';
      if (opts.assumePrice)
        plan.manifest.assumed_price = { input_per_mtok: opts.assumePrice.input_per_mtok, output_per_mtok: opts.assumePrice.output_per_mtok };
      // Resolved once: a resume bills at it, whatever the table or flags say then.
      if (isBilled(provider)) plan.manifest.price = recordedPrice(price);
      await opts.home.store.put(keys.manifest(runId), storedJson(plan.manifest, 2), 'application/json');
      await opts.home.ledger.createRun({
        runId,
        benchmark: loaded.benchmark.id,
        model: provider.model,
        status: 'planned',
        items: plan.items.length,
        createdAt: now.toISOString(),
      });
      await opts.runs?.created(key, runId);
      // The capability check's calls were billed too.
      const probe = plan.manifest.likert_scoring?.probeUsage;
      if (probe && price) await opts.home.ledger.trySpend(runId, costAt(price, probe), null);
      results.push(await execute(plan, loaded, provider, opts, runExecutor));
    }
  }
  return results;
}

/** A run's manifest in this home; InputError when the home has no such run. */
export async function requireManifest(home: Home, runId: string): Promise<Manifest> {
  const manifest = await readManifest(home.store, runId);
  if (!manifest) throw new InputError(`no run "${runId}" in ${home.root} (see: polyeval list runs)`, { field: 'run' });
  return manifest;
}

/** A sweep's run seen again: its summary when it completed, else it is resumed. */
async function resumeOrSummary(runId: string, opts: LocalRunOptions): Promise<LocalRunResult> {
  const run = await opts.home.ledger.getRun(runId);
  const text = run?.status === 'completed' ? await opts.home.store.getText(keys.summary(runId)) : undefined;
  if (!text) return resumeLocal(runId, opts);
  const manifest = await requireManifest(opts.home, runId);
  return { ...parseRunSummary(text, opts.home.store.locate(keys.summary(runId))), status: 'completed', language: manifest.language };
}

/** Continues a run that was killed or stopped: only the items not yet recorded run. */
export async function resumeLocal(runId: string, opts: LocalRunOptions, overrides: { maxCostUsd?: number } = {}): Promise<LocalRunResult> {
  const manifest = await requireManifest(opts.home, runId);
  if (overrides.maxCostUsd !== undefined) {
    // Raising (or setting) the cap is how a run stopped by --max-cost continues.
    manifest.max_cost_usd = overrides.maxCostUsd;
    await opts.home.store.put(keys.manifest(runId), storedJson(manifest, 2), 'application/json');
  }
  const [source] = parseBenchmarkSpec(manifest.benchmark.spec, protocolChoiceOfManifest(manifest));
  if (!source) throw new InputError(`run ${runId} names no benchmark`);
  const loaded = await loadSource(source, {
    packageRoot: opts.packageRoot,
    cacheDir: opts.home.cacheDir,
    env: opts.env ?? process.env,
    ...(manifest.split ? { split: manifest.split } : {}),
  });
  const providerOptions = { ...manifest.provider_options, ...opts.providerOptions };
  const provider = await openProvider(manifest.model.spec, providerOptions, opts);
  await provider.prepare?.(new Set(loaded.tasks.map((t) => t.id)));
  return execute(replanItems(manifest, loaded, provider), loaded, provider, { ...opts, providerOptions });
}

export { RunStopped };
