/**
 * A run on this machine: plan → generate → score → record → aggregate over the local
 * adapters (filesystem store, journal ledger, in-process queues, the sandbox executor).
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { AnyBenchmark } from '#core/benchmarks/benchmark.ts';
import { InputError, RunStopped } from '#core/errors.ts';
import type { Provider } from '#core/models/provider.ts';
import type { SandboxExecutor } from '#sandbox/index.ts';
import { assertMayExecute } from './trust.ts';
import { aggregateRun, type RunSummaryDocument } from '#core/run/aggregate.ts';
import { codeSwitchingRows } from '#core/metrics/index.ts';
import type { MetricRow, RunRecord, TokenUsage } from '#core/types.ts';
import { promptText } from '#core/models/prompt-text.ts';
import { loadRomanianLexicon } from '#sources/romanian-lexicon.ts';
import type { EngineEvent, GeneratedItem, RunContext } from '#core/run/engine.ts';
import { keys } from '#core/run/keys.ts';
import { protocolChoiceOfManifest, type Manifest } from '#core/run/manifest.ts';
import { runPipeline } from '#core/run/pipeline.ts';
import { planRun, replanItems, type LoadedBenchmark, type RunPlan, type WorkItem } from '#core/run/plan.ts';
import { protocolChoiceOf, type RunSpec } from '#core/run/spec.ts';
import { InProcessWorkQueue } from '#local/index.ts';
import { estimateCost, estimateTokens, loadPriceTable, type ProviderOptions } from '#providers/index.ts';
import type { Home } from './home.ts';
import { loadSource } from './load-benchmark.ts';
import { parseBenchmarkSpec } from '#core/benchmarks/spec.ts';
import { createProvider } from './create-provider.ts';
import { codeVersion, packageVersions } from './versions.ts';
import { kotlinFlags } from './kotlin-flags.ts';

export interface LocalRunOptions {
  home: Home;
  packageRoot: string;
  providerOptions?: ProviderOptions;
  /** Scoring concurrency (executor jobs); default = cores. */
  jobs?: number;
  /** User price table overriding the shipped one. */
  pricesPath?: string;
  clock?: () => Date;
  onEvent?: (event: EngineEvent | { type: 'planned'; runId: string; total: number; done: number; benchmark: string }) => void;
  env?: NodeJS.ProcessEnv;
  /** Execute model-written code even where the sandbox exposes credentials, files or network. */
  trustGeneratedCode?: boolean;
}

export type LocalRunResult =
  | ({ status: 'completed' } & RunSummaryDocument)
  | { status: 'stopped'; run_id: string; benchmark: string; model: string; items: number; recorded: number; reason: string };

function newRunId(benchmark: string, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${benchmark}-${stamp}-${randomBytes(3).toString('hex')}`;
}

async function executorFor(benchmark: AnyBenchmark, kotlinLanguageVersion?: string): Promise<SandboxExecutor | undefined> {
  if (benchmark.scorer === 'likert') return undefined;
  const sandbox = await import('#sandbox/index.ts');
  // Always passed, empty included: the Kotlin runtime keeps its flags per process.
  return sandbox.createSandboxExecutor({ kotlinFlags: kotlinFlags(kotlinLanguageVersion) });
}

async function costFunctions(provider: Provider, opts: LocalRunOptions): Promise<Pick<RunContext, 'costOf' | 'projectCost'>> {
  if (provider.kind === 'reference' || provider.kind === 'replay') return {};
  const table = await loadPriceTable(opts.pricesPath);
  const costOf = (usage: TokenUsage): number | null => estimateCost(table, provider.model, usage).usd;
  return {
    costOf,
    projectCost: (prompt, maxTokens, choices) => costOf({ promptTokens: estimateTokens(promptText(prompt)) * choices, completionTokens: maxTokens }) ?? 0,
  };
}

/** Starts the executor's slow set-up (the Kotlin compile server) for the plan's languages, in the background. */
function prepareExecutor(executor: SandboxExecutor | undefined, plan: RunPlan): void {
  executor?.prepare?.([...new Set(plan.items.map((i) => i.language).filter((l): l is string => l !== undefined))]);
}

async function execute(plan: RunPlan, loaded: LoadedBenchmark, provider: Provider, opts: LocalRunOptions, prepared?: SandboxExecutor): Promise<LocalRunResult> {
  const { home } = opts;
  const clock = opts.clock ?? (() => new Date());
  const { manifest } = plan;
  const executor = prepared ?? (await executorFor(loaded.benchmark, manifest.kotlin_language_version ?? undefined));
  try {
    assertMayExecute(executor, provider, opts.trustGeneratedCode ?? false);
  } catch (error) {
    await executor?.close();
    await provider.close?.();
    throw error;
  }
  if (!prepared) prepareExecutor(executor, plan);
  const ledgerRun = await home.ledger.getRun(manifest.run_id);
  const ctx: RunContext = {
    store: home.store,
    ledger: home.ledger,
    provider,
    ...(executor ? { executor } : {}),
    clock,
    ...(await costFunctions(provider, opts)),
    onEvent: (e) => opts.onEvent?.(e),
    manifest,
    benchmark: loaded.benchmark,
    tasks: new Map(plan.tasks.map((t) => [t.id, t])),
    pool: loaded.tasks,
    spent: { usd: ledgerRun?.costUsd ?? 0 },
    stop: {},
  };
  const jobs = opts.jobs ?? availableParallelism();
  try {
    await home.ledger.setStatus(manifest.run_id, 'running');
    const done = (await home.store.list(keys.itemsPrefix(manifest.run_id))).length;
    opts.onEvent?.({ type: 'planned', runId: manifest.run_id, total: plan.items.length, done, benchmark: manifest.benchmark.id });
    const result = await runPipeline(ctx, plan.items, {
      generateQueue: new InProcessWorkQueue<WorkItem>({ maxAttempts: 1 }),
      scoreQueue: new InProcessWorkQueue<GeneratedItem>({ maxAttempts: 1, capacity: Math.max(4, jobs * 4) }),
      generateConcurrency: opts.providerOptions?.concurrency ?? provider.concurrency ?? 4,
      scoreConcurrency: jobs,
    });
    if (result.stoppedReason) {
      await home.ledger.setStatus(manifest.run_id, 'stopped', result.stoppedReason);
      const recorded = (await home.store.list(keys.itemsPrefix(manifest.run_id))).length;
      return { status: 'stopped', run_id: manifest.run_id, benchmark: manifest.benchmark.id, model: manifest.model.name, items: plan.items.length, recorded, reason: result.stoppedReason };
    }
    const summary = await aggregateRun({ store: home.store, ledger: home.ledger, clock }, manifest, (records) => extraMetrics(records, plan, loaded, manifest, home));
    return { ...summary };
  } catch (error) {
    await home.ledger.setStatus(manifest.run_id, 'failed', (error as Error).message);
    throw error;
  } finally {
    await executor?.close();
    await provider.close?.();
  }
}

/** RoCode: code-switching of the generated code beside the reference solutions. */
async function extraMetrics(records: readonly RunRecord[], plan: RunPlan, loaded: LoadedBenchmark, manifest: Manifest, home: Home): Promise<MetricRow[]> {
  if (loaded.benchmark.id !== 'rocode') return [];
  const lexicon = await loadRomanianLexicon({ cacheDir: home.cacheDir });
  const languages = [...new Set(records.map((r) => r.language).filter((l): l is string => l !== null))].sort();
  return languages.flatMap((language) =>
    codeSwitchingRows({
      records: records.filter((r) => r.language === language),
      references: plan.tasks.map((t) => (t.kind === 'io-tests' ? (t.solutions[language] ?? '') : '')),
      language,
      isRomanian: (w) => lexicon.isRomanian(w),
      head: { run_id: manifest.run_id, benchmark: manifest.benchmark.id, model: manifest.model.name },
      seed: manifest.seed,
    }),
  );
}

/**
 * The languages a run of this benchmark evaluates: `--language a,b` → one run each; the
 * `reference` model validates every language the benchmark has solutions in; otherwise the
 * benchmark's default.
 */
function languagesFor(spec: RunSpec, loaded: LoadedBenchmark, provider: Provider): (string | undefined)[] {
  if (spec.language) return spec.language.split(',').map((l) => l.trim()).filter(Boolean);
  if (provider.kind === 'reference' && loaded.benchmark.defaults.languages) return [...loaded.benchmark.defaults.languages];
  return [undefined];
}

/** Starts one run per benchmark source named by `spec.benchmark` (`sample` names several). */
export async function runLocal(spec: RunSpec, opts: LocalRunOptions): Promise<LocalRunResult[]> {
  const clock = opts.clock ?? (() => new Date());
  const sources = parseBenchmarkSpec(spec.benchmark, protocolChoiceOf(spec));
  const results: LocalRunResult[] = [];
  for (const source of sources) {
    const loaded = await loadSource(source, { packageRoot: opts.packageRoot, cacheDir: opts.home.cacheDir, env: opts.env ?? process.env, ...(spec.split ? { split: spec.split } : {}) });
    const probe = await createProvider(spec.model, opts.providerOptions);
    const languages = languagesFor(spec, loaded, probe);
    await probe.close?.();
    for (const language of languages) {
      const runSpec: RunSpec = { ...spec, ...(language ? { language } : {}) };
      const provider = await createProvider(spec.model, opts.providerOptions);
      const now = clock();
      const runId = newRunId(language && languages.length > 1 ? `${loaded.benchmark.id}-${language}` : loaded.benchmark.id, now);
      // One executor per run: it records the toolchains, starts its slow set-up while the
      // run is planned and generated, then scores (execute closes it).
      const executor = await executorFor(loaded.benchmark, spec.kotlinLanguageVersion ?? loaded.benchmark.defaults.kotlinLanguageVersion);
      let plan: RunPlan;
      try {
        assertMayExecute(executor, provider, opts.trustGeneratedCode ?? false);
        const toolchains = executor ? await executor.toolchains() : [];
        plan = await planRun(loaded, runSpec, provider, {
          runId,
          createdAt: now.toISOString(),
          code: codeVersion(opts.packageRoot),
          packages: packageVersions(opts.packageRoot),
          toolchains,
        });
      } catch (error) {
        await executor?.close();
        await provider.close?.();
        throw error;
      }
      prepareExecutor(executor, plan);
      const { region, endpointUrl, apiKeyEnv, timeoutMs, concurrency } = opts.providerOptions ?? {};
      const providerOptions = { region, endpointUrl, apiKeyEnv, timeoutMs, concurrency };
      plan.manifest.provider_options = JSON.parse(JSON.stringify(providerOptions)) as Manifest['provider_options'];
      await opts.home.store.put(keys.manifest(runId), JSON.stringify(plan.manifest, null, 2), 'application/json');
      await opts.home.ledger.createRun({ runId, benchmark: loaded.benchmark.id, model: provider.model, status: 'planned', items: plan.items.length, createdAt: now.toISOString() });
      results.push(await execute(plan, loaded, provider, opts, executor));
    }
  }
  return results;
}

export async function readManifest(home: Home, runId: string): Promise<Manifest> {
  const text = await home.store.getText(keys.manifest(runId));
  if (!text) throw new InputError(`no run "${runId}" in ${home.root} (see: polyeval list runs)`, { field: 'run' });
  return JSON.parse(text) as Manifest;
}

/** Continues a run that was killed or stopped: only the items not yet recorded run. */
export async function resumeLocal(runId: string, opts: LocalRunOptions, overrides: { maxCostUsd?: number } = {}): Promise<LocalRunResult> {
  const manifest = await readManifest(opts.home, runId);
  if (overrides.maxCostUsd !== undefined) {
    // Raising (or setting) the cap is how a run stopped by --max-cost continues.
    manifest.max_cost_usd = overrides.maxCostUsd;
    await opts.home.store.put(keys.manifest(runId), JSON.stringify(manifest, null, 2), 'application/json');
  }
  const [source] = parseBenchmarkSpec(manifest.benchmark.spec, protocolChoiceOfManifest(manifest));
  if (!source) throw new InputError(`run ${runId} names no benchmark`);
  const loaded = await loadSource(source, { packageRoot: opts.packageRoot, cacheDir: opts.home.cacheDir, env: opts.env ?? process.env, ...(manifest.split ? { split: manifest.split } : {}) });
  const providerOptions = { ...manifest.provider_options, ...opts.providerOptions };
  const provider = await createProvider(manifest.model.spec, providerOptions);
  await provider.prepare?.(new Set(loaded.tasks.map((t) => t.id)));
  return execute(replanItems(manifest, loaded, provider), loaded, provider, { ...opts, providerOptions });
}

export { RunStopped };
