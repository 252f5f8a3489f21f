/**
 * plan: selects the tasks of a run, fixes its parameters and writes the manifest; one work
 * item per (task, sample) with a deterministic id.
 */
import { EARLY_STOP_FIRST } from './early-stop.ts';
import { z } from 'zod';
import type { AnyBenchmark } from '../benchmarks/index.ts';
import type { RunProtocol } from '../benchmarks/index.ts';
import { InputError } from '../errors.ts';
import type { GenerationParams, Provider } from '../models/index.ts';
import type { ToolchainInfo } from '../ports.ts';
import { VerdictSchema } from '../columns.ts';
import { SCORER_REGISTRY, type ScorerRegistry } from '../scorers/index.ts';
import type { Task } from '../types.ts';
import { chooseLikertScoring } from './likert-choice.ts';
import type { Manifest } from './manifest.ts';
import type { RunSpec } from './spec.ts';
import { reference } from '../models/index.ts';

/** A benchmark with its tasks loaded from a source. */
export interface LoadedBenchmark {
  benchmark: AnyBenchmark;
  tasks: Task[];
  /** What the user asked for (`sample/abricot`, `abricot:path`, …). */
  spec: string;
  /** Where the rows came from (paths or URLs). */
  source: string;
  sha256: string;
}

/** One sample of one task to generate and score; {@link WorkItem} is inferred from it. */
export const WorkItemSchema = z
  .object({
    runId: z.string().min(1),
    taskId: z.string().min(1),
    sample: z.number().int().min(0),
    language: z.string().min(1).optional(),
    /** Set when the item is run again (an SE sample on resume): the verdict it was counted with. */
    previousVerdict: VerdictSchema.optional(),
  })
  .loose();

export type WorkItem = z.infer<typeof WorkItemSchema>;

export interface RunPlan {
  manifest: Manifest;
  tasks: Task[];
  items: WorkItem[];
}

export interface PlanContext {
  runId: string;
  createdAt: string;
  code: Manifest['code'];
  packages: Record<string, string>;
  /**
   * The toolchains, or how to probe those of the languages the run's items use (asked once
   * the items are known: a run probes no toolchain it will not use).
   */
  toolchains: ToolchainInfo[] | ((languages: ReadonlySet<string>) => Promise<ToolchainInfo[]>);
  /** Whether the likert capability check may call the server (false for a dry run). Default true. */
  probe?: boolean;
  /** Where the benchmark's scorer is looked up (default: the shipped scorer registry). */
  scorers?: ScorerRegistry;
}

/** Chooses the tasks (split, replay coverage, limit) a run evaluates. */
export function selectTasks(loaded: LoadedBenchmark, spec: Pick<RunSpec, 'split' | 'limit' | 'language'>, provider: Provider): Task[] {
  let tasks = loaded.tasks;
  if (spec.split) {
    tasks = tasks.filter((t) => t.split === spec.split);
    if (tasks.length === 0) {
      const splits = [...new Set(loaded.tasks.map((t) => t.split))].join(', ');
      throw new InputError(`no task in split "${spec.split}" (splits: ${splits})`, { field: 'split' });
    }
  }
  // A replay file answers a subset: only the tasks it covers are evaluated.
  if (provider.samplesFor) tasks = tasks.filter((t) => (provider.samplesFor?.(t.id) ?? 0) > 0);
  // `reference` validates the answers the dataset has: a task without one in the run's language is left out.
  if (provider.kind === reference.scheme) {
    const language = spec.language ?? loaded.benchmark.defaults.language;
    const answered = tasks.filter((t) => loaded.benchmark.reference(t, language) !== undefined);
    if (answered.length === 0 && tasks.length > 0) {
      throw new InputError(`no task of ${loaded.source} has a reference answer${language ? ` in ${language}` : ''}`, { field: 'solutions' });
    }
    tasks = answered;
  }
  if (spec.limit !== undefined) tasks = tasks.slice(0, spec.limit);
  if (tasks.length === 0) throw new InputError(`the run selects no task from ${loaded.source}`, { field: 'benchmark' });
  return tasks;
}

export function resolveParams(benchmark: AnyBenchmark, spec: RunSpec, n: number): GenerationParams {
  const d = benchmark.defaults.params;
  const params: GenerationParams = {
    temperature: spec.temperature ?? d.temperature ?? (n > 1 ? 0.8 : 0),
    topP: spec.topP ?? d.topP ?? 0.95,
    maxTokens: spec.maxTokens ?? d.maxTokens ?? 2048,
    stop: spec.stop ?? d.stop ?? [],
  };
  params.seed = spec.seed;
  return params;
}

/** The toolchains of the languages the run's items use (none for a benchmark without code). */
async function toolchainsUsed(toolchains: PlanContext['toolchains'], items: readonly WorkItem[]): Promise<ToolchainInfo[]> {
  const used = new Set(items.map((i) => i.language).filter((l): l is string => l !== undefined));
  const known = typeof toolchains === 'function' ? (used.size > 0 ? await toolchains(used) : []) : toolchains;
  return known.filter((t) => used.has(t.language));
}

/** Builds the manifest and the work items; validates the provider against the dataset. */
export async function planRun(loaded: LoadedBenchmark, spec: RunSpec, provider: Provider, ctx: PlanContext): Promise<RunPlan> {
  await provider.prepare?.(new Set(loaded.tasks.map((t) => t.id)));
  const tasks = selectTasks(loaded, spec, provider);
  const { benchmark } = loaded;
  // replay brings its recorded samples and reference its reference answers; a sampling
  // provider draws the protocol's n.
  const fixed = fixedSamples(provider, benchmark, spec.n !== undefined, spec.language ?? benchmark.defaults.language);
  // A fold: Math.max(...tasks) overflows the stack from about 120,000 tasks.
  const n = spec.n ?? (fixed ? tasks.reduce((most, t) => Math.max(most, fixed(t) ?? 1), -Infinity) : (benchmark.defaults.n ?? 1));
  if (spec.n !== undefined && provider.samplesFor) {
    for (const task of tasks) {
      const available = provider.samplesFor(task.id) ?? 0;
      if (available < n) throw new InputError(`task ${task.id} has ${available} sample(s) in the replay file, fewer than n=${n}`, { field: 'n' });
    }
  }
  const items = workItems(ctx.runId, tasks, n, provider, benchmark, spec.language, fixed);
  const params = resolveParams(benchmark, spec, n);
  // Settings the model cannot take are adapted (with a warning) or refused here, before any call.
  const firstTask = tasks[0];
  const style = firstTask ? benchmark.buildPrompt(firstTask, { pool: loaded.tasks }).style : 'chat';
  const warnings = [...(provider.adaptParams?.(params, style).warnings ?? []), ...unansweredWarning(loaded, spec, provider)];
  const likertScoring = (ctx.scorers ?? SCORER_REGISTRY).byKind(benchmark.scorer).likertModes
    ? await chooseLikertScoring(spec, provider, ctx.probe ?? true)
    : null;
  const promptNotes = benchmark.promptNotes?.(likertScoring?.mode ?? null) ?? [];
  const manifest: Manifest = {
    run_id: ctx.runId,
    created_at: ctx.createdAt,
    benchmark: {
      id: benchmark.id,
      title: benchmark.title,
      spec: loaded.spec,
      source: loaded.source,
      sha256: loaded.sha256,
      tasks: tasks.length,
      scorer: benchmark.scorer,
    },
    model: { spec: provider.id, kind: provider.kind, name: provider.model, ...(provider.details ? { details: { ...provider.details } } : {}) },
    params,
    n,
    seed: spec.seed,
    split: spec.split ?? null,
    limit: spec.limit ?? null,
    language: items.every((i) => i.language === undefined) ? null : (spec.language ?? runLanguage(benchmark, items)),
    time_scale: spec.timeScale,
    likert_mode: likertScoring?.mode ?? null,
    likert_scoring: likertScoring,
    warnings,
    ...(promptNotes.length > 0 ? { prompt_notes: promptNotes } : {}),
    max_cost_usd: spec.maxCostUsd ?? null,
    early_stop: spec.earlyStop === false ? null : { first: EARLY_STOP_FIRST },
    kotlin_language_version: spec.kotlinLanguageVersion ?? benchmark.defaults.kotlinLanguageVersion ?? null,
    protocol: runProtocol(benchmark, spec),
    code: ctx.code,
    packages: ctx.packages,
    toolchains: await toolchainsUsed(ctx.toolchains, items),
    items: items.length,
  };
  return { manifest, tasks, items };
}

/** Rebuilds the work items of a planned run (for resume) from its manifest and tasks. */
export function replanItems(manifest: Manifest, loaded: LoadedBenchmark, provider: Provider): RunPlan {
  if (manifest.benchmark.sha256 !== loaded.sha256) {
    throw new InputError(
      `dataset changed since run ${manifest.run_id} was planned (sha256 ${loaded.sha256.slice(0, 12)} ≠ ${manifest.benchmark.sha256.slice(0, 12)})`,
      { field: 'resume' },
    );
  }
  const spec = {
    split: manifest.split ?? undefined,
    limit: manifest.limit ?? undefined,
    language: manifest.language ?? undefined,
  };
  const tasks = selectTasks(loaded, spec, provider);
  const fixed = fixedSamples(provider, loaded.benchmark, manifest.protocol?.overrides.n !== undefined, manifest.language ?? undefined);
  const items = workItems(manifest.run_id, tasks, manifest.n, provider, loaded.benchmark, manifest.language ?? undefined, fixed);
  return { manifest, tasks, items };
}

/**
 * One item per (task, sample). Replay without -n plans every recorded sample of a task;
 * with -n exactly n (checked at plan time).
 */
function workItems(
  runId: string,
  tasks: Task[],
  n: number,
  provider: Provider,
  benchmark: AnyBenchmark,
  language: string | undefined,
  fixed: ((task: Task) => number | undefined) | undefined,
): WorkItem[] {
  const items: WorkItem[] = [];
  for (const task of tasks) {
    const available = fixed?.(task);
    const total = available === undefined ? n : Math.min(n, available);
    for (let sample = 0; sample < total; sample++) {
      const lang = provider.languageFor?.(task.id, sample) ?? benchmark.languageOf(task, language);
      items.push({ runId, taskId: task.id, sample, ...(lang ? { language: lang } : {}) });
    }
  }
  return items;
}

/**
 * The language of a run without `--language` (a benchmark without code, ABRICOT, has none
 * whatever `--language` says): on a benchmark whose request picks the language
 * (RoCode) the one language every item runs in (a replay file's lines may choose C), null when
 * they run in several; else the benchmark's default.
 */
function runLanguage(benchmark: AnyBenchmark, items: readonly WorkItem[]): string | null {
  const fallback = benchmark.defaults.language ?? null;
  if (!benchmark.defaults.languages) return fallback;
  const languages = new Set(items.map((i) => i.language));
  if (languages.size > 1) return null;
  const [only] = languages;
  return only ?? fallback;
}

/** `reference` leaves out the tasks without a reference answer in the run's language: the manifest says which. */
function unansweredWarning(loaded: LoadedBenchmark, spec: RunSpec, provider: Provider): string[] {
  if (provider.kind !== reference.scheme) return [];
  const language = spec.language ?? loaded.benchmark.defaults.language;
  const missing = loaded.tasks.filter((t) => (!spec.split || t.split === spec.split) && loaded.benchmark.reference(t, language) === undefined).map((t) => t.id);
  if (missing.length === 0) return [];
  const shown = missing.slice(0, 5).join(', ') + (missing.length > 5 ? `, … (${missing.length} in all)` : '');
  return [`${missing.length} task(s) without a reference answer${language ? ` in ${language}` : ''} left out: ${shown}`];
}

/**
 * Samples a provider fixes per task: replay's recorded samples; `reference`'s reference
 * answers (one sample each) unless -n was given (then answers repeat, sample mod count).
 */
function fixedSamples(
  provider: Provider,
  benchmark: AnyBenchmark,
  nGiven: boolean,
  language: string | undefined,
): ((task: Task) => number | undefined) | undefined {
  if (provider.samplesFor) return (task) => provider.samplesFor?.(task.id);
  if (provider.kind === reference.scheme && !nGiven) return (task) => Math.max(1, benchmark.referenceCount?.(task, language) ?? 1);
  return undefined;
}

/** The manifest's protocol: the benchmark's binding plus the sampling settings the user overrode. */
function runProtocol(benchmark: AnyBenchmark, spec: RunSpec): RunProtocol {
  const { protocol } = benchmark;
  const given: Record<string, unknown> = { n: spec.n, temperature: spec.temperature, top_p: spec.topP, max_tokens: spec.maxTokens, stop: spec.stop };
  const overrides = { ...protocol.overrides };
  for (const [key, value] of Object.entries(given)) if (value !== undefined) overrides[key] = value;
  return { name: protocol.name, settings: protocol.settings, overrides };
}
