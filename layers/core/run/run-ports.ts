/**
 * What one run asks of the world outside core (DESIGN §3): the ports {@link startRuns} and
 * {@link resumeRun} (orchestrate.ts) drive a run through — load → plan → generate → score →
 * record → aggregate. A driver (the local CLI, a sweep) only wires adapters into these; the
 * order of the steps and the rules between them (price before any call, manifest before the
 * ledger row, the capability check billed, a failure recorded) live in core.
 */
import type { AnyBenchmark } from '../benchmarks/benchmark.ts';
import type { BenchmarkRegistry } from '../benchmarks/registry.ts';
import type { BenchmarkSource } from '../benchmarks/spec.ts';
import type { Provider } from '../models/provider.ts';
import type { BlobStore, Executor, RunLedger } from '../ports.ts';
import type { TokenUsage } from '../types.ts';
import type { ExtraMetrics, RunSummaryDocument } from '../report/aggregate.ts';
import type { EngineEvent, RunContext } from './engine.ts';
import type { Manifest } from './manifest.ts';
import type { PipelineOptions } from './pipeline.ts';
import type { LoadedBenchmark, PlanContext, RunPlan } from './plan.ts';
import type { RunSpec } from './spec.ts';

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

/** What a run reports while it goes: each record (with its language, what the ETA learns by), its start and its end. */
export type RunEvent = (EngineEvent & { language: string; runId: string }) | PlannedEvent | EndedEvent;

/** How a run ended: its summary, or why it stopped before every item was recorded (a cost cap). */
export type RunResult =
  | ({ status: 'completed'; language?: string | null } & RunSummaryDocument)
  | { status: 'stopped'; run_id: string; benchmark: string; model: string; items: number; recorded: number; reason: string; language?: string | null };

/** A run's executor and how to give it back (a run's own is closed, a sweep's shared one stays open). */
export interface ExecutorLease<E extends Executor = Executor> {
  executor?: E;
  release(): Promise<void>;
}

/** USD of one call's usage at the run's price. */
export type UsageCost = (usage: TokenUsage) => number;

/** A new run's price, resolved once: what a call costs, and what its manifest records (`price`) so resumes and workers bill at it. */
export interface RunPrice {
  cost: UsageCost;
  recorded: NonNullable<Manifest['price']> | null;
}

/**
 * The adapters of one driver; `E` is its executor (the local sandbox reports its isolation).
 * @example
 * const ports: RunPorts = { store, ledger, clock, load: (source, split) => loadSource(source, …), … };
 * const results = await startRuns(spec, ports);
 */
export interface RunPorts<E extends Executor = Executor> {
  store: BlobStore;
  ledger: RunLedger;
  clock: () => Date;
  /** The benchmarks `spec.benchmark` may name (default: the registry). */
  benchmarks?: BenchmarkRegistry;
  /** load: a benchmark source's tasks (of `split` when given). */
  load(source: BenchmarkSource, split: string | undefined): Promise<LoadedBenchmark>;
  /** The languages a request starts one run each for (`undefined`: the benchmark's default). */
  languages(spec: RunSpec, loaded: LoadedBenchmark): (string | undefined)[];
  /** A new run's id. */
  newRunId(benchmark: string, language: string | undefined, languages: readonly (string | undefined)[], now: Date): string;
  /** The spec a new run of `benchmark` is planned with (the driver's own settings applied, e.g. `--batch`). */
  runSpec(spec: RunSpec, benchmark: AnyBenchmark): RunSpec;
  /** The model, opened for one run; `recorded` are the provider options a resumed run was planned with. */
  openProvider(spec: string, recorded?: Manifest['provider_options']): Promise<Provider>;
  /**
   * The cost of a call at the run's price, the driver's assumed price counted (undefined: the model is not billed).
   * @throws InputError when a cost cap would bound a model without a price, before any call.
   */
  price(provider: Provider, capUsd: number | null): Promise<RunPrice | undefined>;
  /** The engine's cost functions for a planned run (none for an unbilled model). */
  costFunctions(manifest: Manifest): Promise<Pick<RunContext, 'costOf' | 'projectCost'>>;
  /** The executor a run of `benchmark` scores with (none when its scorer runs no code). */
  executor(benchmark: AnyBenchmark): Promise<ExecutorLease<E>>;
  /** @throws InputError when model-written code may not run in this executor (credentials, network or files exposed). */
  mayExecute(executor: E | undefined, provider: Provider): void;
  /** The code revision and package versions a manifest records. */
  versions(): Pick<PlanContext, 'code' | 'packages'>;
  /** The driver's settings a new run's manifest records (provider options, generation mode, an assumed price). */
  recordSettings(manifest: Manifest): void;
  /** How generate → score runs here: queues, concurrency, a shared gate, batch generation. */
  pipeline(ctx: RunContext, recorded?: Manifest['provider_options']): PipelineOptions;
  /** The benchmark's own metrics over a run's records (RoCode's code-switching). */
  extraMetrics(loaded: LoadedBenchmark, plan: RunPlan): ExtraMetrics;
  /**
   * A sweep's bookkeeping, per run it would start (key: dataset spec and language): the id of
   * a run already started for that key (resumed, or its summary returned when it completed),
   * and a hook called with each new run's id before any of its work starts.
   */
  runs?: { existing(key: string): string | undefined; created(key: string, runId: string): Promise<void> };
  /** The message when a resumed run is not in the store. */
  noSuchRun(runId: string): Error;
  onEvent?: (event: RunEvent) => void;
}
