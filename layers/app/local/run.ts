/**
 * A run on this machine: core's orchestration (layers/core/run/orchestrate.ts: load → plan →
 * generate → score → record → aggregate) over the local adapters — filesystem store, journal
 * ledger, in-process queues, the sandbox executor, the dataset loaders, the price table.
 * This file only wires them.
 */
import { availableParallelism } from 'node:os';
import type { AnyBenchmark } from '#core/benchmarks/index.ts';
import { scorerByKind } from '#core/scorers/index.ts';
import { InputError, RunStopped } from '#core/errors.ts';
import type { Provider } from '#core/models/index.ts';
import type { SandboxExecutor } from '#sandbox/index.ts';
import { assertMayExecute } from './trust.ts';
import { computeExtraMetrics } from '#core/benchmarks/index.ts';
import { loadBenchmarkResources } from '#sources/index.ts';
import type { GeneratedItem, RunContext } from '#core/run/index.ts';
import type { RunSettings } from '#core/run/index.ts';
import type { Manifest } from '#core/run/index.ts';
import { requireManifest as requireRunManifest, resumeRun, startRuns } from '#core/run/orchestrate.ts';
import type { WorkItem } from '#core/run/index.ts';
import type { EndedEvent, ExecutorLease, PlannedEvent, RunEvent, RunPorts, RunResult, SweepRuns } from '#core/run/run-ports.ts';
import type { RunSpec } from '#core/run/index.ts';
import { InProcessWorkQueue } from '#local/index.ts';
import { costAt, isBilled, loadUserPrices, requireAwsRegion, shippedPriceTable, type ModelPrice, type ProviderOptions } from '#providers/index.ts';
import type { Home } from './home.ts';
import { loadSource } from '../shared/load-benchmark.ts';
import type { BenchmarkRegistry } from '#core/benchmarks/index.ts';
import { createProvider } from '../shared/create-provider.ts';
import { codeVersionSoon, packageVersions } from '../shared/versions.ts';
import { languagesFor, newRunId, runIdPrefix } from '../shared/run-ids.ts';
import { planPrice, projectionOf, recordedPrice, runCostOf } from '../shared/cost-projection.ts';
import type { ModelLimits } from './model-limits.ts';
import { SharedSandbox } from './shared-sandbox.ts';
import type { ItemGate } from '#core/run/index.ts';
import { batchRunSpec, batchGenerator, type BatchEvent, type BatchOptions } from './batch-run.ts';

export { SharedSandbox };
export type { PlannedEvent, EndedEvent };

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
  onEvent?: (event: RunEvent | BatchEvent) => void;
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
  /** A sweep's bookkeeping, per run it would start (see RunObserver.runs). */
  runs?: SweepRuns;
  /** The benchmarks `spec.benchmark` may name (default: the registry). */
  benchmarks?: BenchmarkRegistry;
}

export type LocalRunResult = RunResult;

/** Starts one run per benchmark source named by `spec.benchmark` (`sample` names several). */
export function runLocal(spec: RunSpec, opts: LocalRunOptions): Promise<LocalRunResult[]> {
  // git's answer for the manifests, asked now: it comes while the benchmark loads (start-up's critical path).
  const code = codeVersionSoon(opts.packageRoot);
  code.catch(() => undefined); // a run refused before it is planned never reads it; a planned one gets the error itself
  return startRuns(spec, localPorts(opts, code));
}

/** Continues a run that was killed or stopped: only the items not yet recorded run. */
export function resumeLocal(runId: string, opts: LocalRunOptions, overrides: { maxCostUsd?: number; earlyStop?: false } = {}): Promise<LocalRunResult> {
  return resumeRun(runId, localPorts(opts), overrides);
}

/** A run's manifest in this home; InputError when the home has no such run. */
export function requireManifest(home: Home, runId: string): Promise<Manifest> {
  return requireRunManifest(runId, { store: home.store, noSuchRun: noSuchRun(home) });
}

function noSuchRun(home: Home): (runId: string) => Error {
  return (runId) => new InputError(`no run "${runId}" in ${home.root} (see: polyeval list runs)`, { field: 'run' });
}

/** The provider options a run uses: those it was planned with (a resume), overridden by this invocation's. */
function providerOptionsOf(opts: LocalRunOptions, recorded?: Manifest['provider_options']): ProviderOptions | undefined {
  return recorded ? { ...recorded, ...opts.providerOptions } : opts.providerOptions;
}

/** The local adapters behind core's run ports. */
function localPorts(opts: LocalRunOptions, code?: Promise<Manifest['code']>): RunPorts<SandboxExecutor> {
  const { home } = opts;
  const clock = opts.clock ?? (() => new Date());
  // The user's prices first (--prices, then --assume-price), then the shipped table.
  const price = async (provider: Provider, capUsd: number | null): Promise<ModelPrice | undefined> =>
    planPrice(shippedPriceTable(), provider, capUsd, await loadUserPrices(opts.pricesPath, opts.assumePrice), clock().toISOString().slice(0, 10));
  return {
    store: home.store,
    ledger: home.ledger,
    clock,
    catalog: {
      ...(opts.benchmarks ? { benchmarks: opts.benchmarks } : {}),
      load: async (source, split, spec) => {
        const loaded = await loadSource(source, {
          packageRoot: opts.packageRoot,
          cacheDir: home.cacheDir,
          env: opts.env ?? process.env,
          ...(split ? { split } : {}),
        });
        return { loaded, languages: spec ? languagesFor(spec, loaded.benchmark, loaded.tasks) : [] };
      },
    },
    newRun: async (spec, loaded, language, languages, now) => ({
      runId: newRunId(runIdPrefix(loaded.benchmark.id, language, languages), now),
      spec: batchRunSpec(spec, loaded.benchmark, opts),
      versions: { code: await (code ?? codeVersionSoon(opts.packageRoot)), packages: packageVersions(opts.packageRoot) },
      settings: await settingsOf(opts),
    }),
    models: {
      open: async (spec, use) => {
        const providerOptions = providerOptionsOf(opts, 'recorded' in use ? use.recorded : undefined);
        const created = await createProvider(spec, providerOptions);
        // A Regional provider without a Region would fail every call: refused before the run starts.
        await requireAwsRegion(created.kind, providerOptions).catch(async (error: unknown) => {
          await created.close?.();
          throw error;
        });
        // Under the sweep's shared limit of that model when there is one.
        const provider = opts.modelLimits ? opts.modelLimits.wrap(spec, created, providerOptions?.concurrency) : created;
        if (!('capUsd' in use)) return { provider };
        try {
          const found = await price(provider, use.capUsd);
          if (found) return { provider, price: { cost: (usage) => costAt(found, usage), recorded: recordedPrice(found) } };
          // Billed without a price (no cap asked for one): recorded as null, as the cloud's plan does.
          return isBilled(provider) ? { provider, price: { cost: () => 0, recorded: null } } : { provider };
        } catch (error) {
          await provider.close?.();
          throw error;
        }
      },
    },
    executors: {
      lease: async (benchmark, provider) => {
        const lease = await executorFor(benchmark, opts.sandbox, opts.jobs);
        try {
          assertMayExecute(lease.executor, provider, opts.trustGeneratedCode ?? false);
        } catch (error) {
          await lease.release();
          throw error;
        }
        return lease;
      },
    },
    execution: async (plan, loaded, recorded) => {
      const { manifest } = plan;
      const run = { ...opts, providerOptions: providerOptionsOf(opts, recorded) };
      const jobs = opts.jobs ?? availableParallelism();
      return {
        costs: await costFunctions(manifest, opts),
        pipeline: (ctx) => {
          const generateAll = ctx.manifest.generation === 'batch' ? batchGenerator(ctx, run) : undefined;
          return {
            ...(generateAll ? { generateAll } : {}),
            generateQueue: new InProcessWorkQueue<WorkItem>({ maxAttempts: 1 }),
            scoreQueue: new InProcessWorkQueue<GeneratedItem>({ maxAttempts: 1, capacity: Math.max(4, jobs * 4) }),
            generateConcurrency: run.providerOptions?.concurrency ?? ctx.provider.concurrency ?? 4,
            // Beyond the jobs, the samples the executor compiles ahead of their runs (batched Kotlin compilations).
            scoreConcurrency: jobs + (ctx.executor?.compileAhead?.() ?? 0),
            ...(opts.gate ? { gate: opts.gate } : {}),
          };
        },
        // The benchmark's own metrics (RoCode: code-switching of the generated code beside the reference solutions).
        extraMetrics: (records) => {
          const head = { run_id: manifest.run_id, benchmark: manifest.benchmark.id, model: manifest.model.name };
          return computeExtraMetrics(loaded.benchmark, { records, tasks: plan.tasks, head, seed: manifest.seed }, (needs) =>
            loadBenchmarkResources(needs, { cacheDir: home.cacheDir }),
          );
        },
      };
    },
    observer: {
      ...(opts.onEvent ? { onEvent: opts.onEvent } : {}),
      ...(opts.runs ? { runs: opts.runs } : {}),
      noSuchRun: noSuchRun(home),
    },
  };
}

/** The engine's cost functions of a planned run (none for an unbilled model). */
async function costFunctions(manifest: Manifest, opts: LocalRunOptions): Promise<Pick<RunContext, 'costOf' | 'projectCost'>> {
  if (!isBilled(manifest.model)) return {};
  // A manifest written before prices were recorded: the resume's --prices over its own overrides' absence.
  const user = manifest.price ? {} : await loadUserPrices(opts.pricesPath);
  const priced = user.models ? { ...manifest, price_overrides: { ...user.models, ...manifest.price_overrides } } : manifest;
  const costOf = runCostOf(shippedPriceTable(), priced, manifest.max_cost_usd);
  return costOf ? { costOf, projectCost: projectionOf(costOf) } : {};
}

/** A run's executor: its own sandbox (closed when the run ends), the sweep's shared one (kept open), or none. */
async function executorFor(benchmark: AnyBenchmark, shared?: SharedSandbox, jobs?: number): Promise<ExecutorLease<SandboxExecutor>> {
  if (!scorerByKind(benchmark.scorer).needsExecutor) return { release: async () => undefined };
  if (shared) return { executor: await shared.get(), release: async () => undefined };
  const sandbox = await import('#sandbox/index.ts');
  // At most --jobs programs at once (never more than the cores), also when samples compile ahead.
  const executor = await sandbox.createSandboxExecutor({ concurrency: Math.min(jobs ?? availableParallelism(), availableParallelism()) });
  return { executor, release: () => executor.close() };
}

/** What this invocation records in a new run's manifest (lifecycle.ts recordSettings): the provider options, `--batch`, `--prices`, `--assume-price`. */
async function settingsOf(opts: LocalRunOptions): Promise<Omit<RunSettings, 'price'>> {
  const { region, endpointUrl, apiKeyEnv, timeoutMs, concurrency } = opts.providerOptions ?? {};
  const providerOptions = { region, endpointUrl, apiKeyEnv, timeoutMs, concurrency };
  const user = opts.pricesPath ? await loadUserPrices(opts.pricesPath) : {};
  return {
    providerOptions: JSON.parse(JSON.stringify(providerOptions)) as Manifest['provider_options'],
    batch: opts.batch?.newRuns === true,
    ...(opts.assumePrice ? { assumedPrice: opts.assumePrice } : {}),
    ...(user.models ? { priceOverrides: user.models } : {}),
  };
}

export { RunStopped };
