/**
 * What one run asks of the world outside core (DESIGN §3): the ports {@link startRuns} and
 * {@link resumeRun} (orchestrate.ts) drive a run through — load → plan → generate → score →
 * record → aggregate. A driver (the local CLI, a sweep) only wires adapters into these; the
 * order of the steps and the rules between them (price before any call, manifest before the
 * ledger row, the capability check billed, a failure recorded) live in core.
 */
import type { AnyBenchmark } from '../benchmarks/index.ts';
import type { BenchmarkRegistry } from '../benchmarks/index.ts';
import type { BenchmarkSource } from '../benchmarks/index.ts';
import type { Provider } from '../models/index.ts';
import type { BlobStore, Executor, RunLedger } from '../ports.ts';
import type { TokenUsage } from '../types.ts';
import type { ExtraMetrics, RunSummaryDocument } from '../report/index.ts';
import type { EngineEvent, RunContext } from './engine.ts';
import type { RunSettings } from './lifecycle.ts';
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

/**
 * A new run's price, resolved once: what a call costs, and what its manifest records (`price`)
 * so resumes and workers bill at it (null: a billed model without a price).
 */
export interface RunPrice {
  cost: UsageCost;
  recorded: NonNullable<Manifest['price']> | null;
}

/** Where a run's benchmarks come from. */
export interface RunCatalog {
  /** The benchmarks `spec.benchmark` may name (default: the registry). */
  benchmarks?: BenchmarkRegistry;
  /**
   * A benchmark source's tasks (of `split` when given) and, for a new request (`spec`), the
   * languages it starts one run each for (`undefined`: the benchmark's default; none for a resume).
   */
  load(source: BenchmarkSource, split: string | undefined, spec?: RunSpec): Promise<{ loaded: LoadedBenchmark; languages: (string | undefined)[] }>;
}

/** What a driver gives a new run, in one answer: its id, its spec, what its manifest records. */
export interface NewRun {
  runId: string;
  /** The spec it is planned with (the driver's own settings applied, e.g. `--batch`). */
  spec: RunSpec;
  /** The code revision and package versions its manifest records. */
  versions: Pick<PlanContext, 'code' | 'packages'>;
  /** The driver's settings its manifest records (lifecycle.ts recordSettings; the price is core's). */
  settings: Omit<RunSettings, 'price'>;
}

/** A model opened for one run, and (a new run's) price. */
export interface OpenedModel {
  provider: Provider;
  /** A new run's price (undefined: the model is not billed); none is asked for a resumed run. */
  price?: RunPrice;
}

/** The models a run calls: opened once per run. */
export interface ModelPort {
  /**
   * Opens `spec` for a new run (`capUsd`: its cost cap, the price resolved with it) or a resumed
   * one (`recorded`: the provider options it was planned with; no price, its manifest has it).
   * @throws InputError when a cost cap would bound a model without a price, before any call.
   */
  open(spec: string, use: { capUsd: number | null } | { recorded: Manifest['provider_options'] }): Promise<OpenedModel>;
}

/** Where a run's model-written code runs. */
export interface ExecutorPort<E extends Executor = Executor> {
  /**
   * The executor a run of `benchmark` scores with (none when its scorer runs no code), checked
   * for `provider`'s code before it is handed over.
   * @throws InputError when model-written code may not run in it (credentials, network or files exposed); nothing is left leased.
   */
  lease(benchmark: AnyBenchmark, provider: Provider): Promise<ExecutorLease<E>>;
}

/** How a planned run executes here: its cost functions, its pipeline, its benchmark's own metrics. */
export interface RunExecution {
  /** The engine's cost functions (none for an unbilled model). */
  costs: Pick<RunContext, 'costOf' | 'projectCost'>;
  /** How generate → score runs here: queues, concurrency, a shared gate, batch generation. */
  pipeline(ctx: RunContext): PipelineOptions;
  /** The benchmark's own metrics over a run's records (RoCode's code-switching). */
  extraMetrics: ExtraMetrics;
}

/** What a run reports, and a sweep's bookkeeping. */
export interface RunObserver {
  onEvent?: (event: RunEvent) => void;
  /**
   * A sweep's bookkeeping, per run it would start (key: dataset spec and language): the id of
   * a run already started for that key (resumed, or its summary returned when it completed),
   * and a hook called with each new run's id before any of its work starts.
   */
  runs?: SweepRuns;
  /** The message when a resumed run is not in the store. */
  noSuchRun(runId: string): Error;
}

/** A sweep's runs by key (RunObserver.runs). */
export interface SweepRuns {
  existing(key: string): string | undefined;
  created(key: string, runId: string): Promise<void>;
}

/**
 * The adapters of one driver, in a few cohesive ports; `E` is its executor (the local sandbox
 * reports its isolation). One local run crosses into them about six times (docs/development.md).
 * @example
 * const ports: RunPorts = { store, ledger, clock, catalog, newRun, models, executors, execution, observer };
 * const results = await startRuns(spec, ports);
 */
export interface RunPorts<E extends Executor = Executor> {
  store: BlobStore;
  ledger: RunLedger;
  clock: () => Date;
  catalog: RunCatalog;
  /** A new run of `loaded`'s benchmark in `language` (one of `languages`), started at `now`. */
  newRun(spec: RunSpec, loaded: LoadedBenchmark, language: string | undefined, languages: readonly (string | undefined)[], now: Date): Promise<NewRun>;
  models: ModelPort;
  executors: ExecutorPort<E>;
  /** How a planned run executes (`recorded`: a resumed run's provider options). */
  execution(plan: RunPlan, loaded: LoadedBenchmark, recorded?: Manifest['provider_options']): Promise<RunExecution>;
  observer: RunObserver;
}
