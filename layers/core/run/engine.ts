/**
 * The stages of a run — generate, score, record — as functions over the ports. The local
 * pipeline and the cloud handlers drive the same functions; only the adapters differ.
 * Spend goes through the run's cost guard (cost-guard.ts), the one owner of it. A little
 * over 250 lines: the three stages share the item context and its private helpers.
 */
import { z } from 'zod';
import type { AnyBenchmark } from '../benchmarks/index.ts';
import { InputError, ProviderError, QuotaExhausted, RunStopped, TransientError } from '../errors.ts';
import type { Prompt, Provider } from '../models/index.ts';
import type { BlobStore, Executor, RunLedger } from '../ports.ts';
import type { LikertEvidence } from '../judging/index.ts';
import { SCORER_REGISTRY, type ScorerRegistry } from '../scorers/index.ts';
import type { ChoiceGeneration, Scorer } from '../scorers/index.ts';
import type { RunRecord, ScoreOutcome, Task, TokenUsage, Verdict } from '../types.ts';
import { taskView, type TaskView } from '../scorers/index.ts';
import { CostGuard } from './cost-guard.ts';
import { itemId, keys } from './keys.ts';
import type { Manifest } from './manifest.ts';
import { RunRecordSchema, VerdictSchema } from '../columns.ts';
import { parseStored, schemaVersionField, storedJson } from './documents.ts';
import { WorkItemSchema, type WorkItem } from './plan.ts';

export interface EngineEvent {
  type: 'recorded';
  item: WorkItem;
  verdict: Verdict;
}

/** A run's dependencies: the ports, the model, the clock and prices — what the stages call out to. */
export interface EngineDeps {
  store: BlobStore;
  ledger: RunLedger;
  provider: Provider;
  executor?: Executor;
  clock: () => Date;
  /** USD for one call's usage; null when the model has no price. */
  costOf?: (usage: TokenUsage) => number | null;
  /** Upper estimate of one call's cost before it is made (prompt tokens + max_tokens), for --max-cost. */
  projectCost?: (prompt: Prompt, maxTokens: number, choices: number) => number;
  onEvent?: (event: EngineEvent) => void;
  /**
   * A call still throttled after its retries throws {@link QuotaExhausted} (the item goes back
   * to its queue: the cloud) instead of becoming an SE record (this machine, where `--resume`
   * re-runs SE samples).
   */
  requeueThrottled?: boolean;
}

/** A run's definition: what was planned, fixed for the run's life. */
export interface RunDefinition {
  readonly manifest: Manifest;
  /** The benchmark bound to the run's protocol. */
  readonly benchmark: AnyBenchmark;
  readonly tasks: ReadonlyMap<string, Task>;
  /** The whole dataset (few-shot pools draw from it). */
  readonly pool: readonly Task[];
  /** The scorer kinds the run's tasks are scored by (default: the shipped registry; tests add a toy kind). */
  readonly scorers?: ScorerRegistry;
}

/** What changes while a run goes: its spend (the cost guard) and whether it must stop taking new work. */
export interface RunState {
  /** The run's cost guard (spend and reservations live in the ledger); built on first use when absent. */
  guard?: CostGuard;
  /** Set when the run must stop taking new work (cost cap, fatal input error). */
  stop: { reason?: string; error?: Error; /** The run stopped itself (run/early-stop.ts). */ early?: boolean };
}

/** Everything a stage needs to handle one item of one run: its dependencies, its definition and its state. */
export type RunContext = EngineDeps & RunDefinition & RunState;

/**
 * A run's fresh state: its cost guard over the ledger (the manifest's cap, the run's prices) and no stop.
 * @example
 * const ctx: RunContext = { ...deps, ...definition, ...newRunState(deps, definition) };
 */
export function newRunState(deps: Pick<EngineDeps, 'ledger' | 'costOf'>, definition: Pick<RunDefinition, 'manifest'>): RunState {
  return { guard: newCostGuard(deps, definition), stop: {} };
}

/** The cost guard of a run: the ledger's spend against the manifest's cap, at the run's prices. */
function newCostGuard(deps: Pick<EngineDeps, 'ledger' | 'costOf'>, definition: Pick<RunDefinition, 'manifest'>): CostGuard {
  return new CostGuard({
    ledger: deps.ledger,
    runId: definition.manifest.run_id,
    capUsd: definition.manifest.max_cost_usd,
    ...(deps.costOf ? { costOf: deps.costOf } : {}),
  });
}

/** What the generate stage hands to the score stage. */
const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);
const UsageSchema = z.object({ promptTokens: z.number(), completionTokens: z.number() });

/** A generated sample on its way to scoring (the execute queue's message); {@link GeneratedItem} is inferred from it. */
export const GeneratedItemSchema = z
  .object({
    item: WorkItemSchema,
    raw: z.string(),
    answer: z.string(),
    usage: UsageSchema.nullable(),
    latencyMs: z.number().nullable(),
    attempts: z.number().int().min(0),
    likert: z.custom<LikertEvidence>(isObject, { error: 'expected the likert evidence (an object)' }).optional(),
    /** A generation that failed after the provider's retries: recorded as SE. */
    failure: z.string().optional(),
    /** The model deterministically gave no usable answer (refusal, `content: null`): the item's error, not SE. */
    refusal: z.string().optional(),
    /** Generated by the run's batch job of this index (run/batch-jobs.ts): recorded, so a retry knows where the answer came from. */
    batchJob: z.number().int().min(0).optional(),
  })
  .loose();
export type GeneratedItem = z.infer<typeof GeneratedItemSchema>;

/** A stored record is read as the table's own schema; fields added since pass through. */
const StoredRecordSchema = RunRecordSchema.loose();

const StoredOutcomeSchema = z
  .object({ verdict: VerdictSchema, testsPassed: z.number(), testsTotal: z.number() })
  .loose()
  .transform((outcome) => outcome as unknown as ScoreOutcome);

/** The item JSON (DESIGN §5): generation + verdict + per-test detail; {@link ItemDocument} is inferred from it. */
export const ItemDocumentSchema = z
  .object({
    schema_version: schemaVersionField,
    item_id: z.string().min(1),
    record: StoredRecordSchema,
    raw: z.string(),
    generation: z.object({ usage: UsageSchema.nullable(), latency_ms: z.number().nullable(), attempts: z.number().int().min(0) }).loose(),
    outcome: StoredOutcomeSchema,
    /** The task as the model saw it; on sample 0 only (every sample of a task shares it). */
    task_view: z.custom<TaskView>(isObject, { error: 'expected the task view (an object)' }).optional(),
  })
  .loose();
export type ItemDocument = z.infer<typeof ItemDocumentSchema>;

/**
 * The one reader of a stored item document's text (`origin`: its key or path, for the error).
 * @throws CorruptRecordError naming `origin` and the field that does not match.
 */
export function parseItemDocument(text: string, origin: string): ItemDocument {
  return parseStored(ItemDocumentSchema, text, origin);
}

/** The scorer of a task of this run. */
function scorerOf(ctx: RunContext, task: Task): Scorer {
  return (ctx.scorers ?? SCORER_REGISTRY).byKind(task.kind);
}

function taskOf(ctx: RunContext, item: WorkItem): Task {
  const task = ctx.tasks.get(item.taskId);
  if (!task) throw new InputError(`unknown task ${item.taskId} in run ${item.runId}`);
  return task;
}

/** The run's cost guard, built on first use from the context (local runs and cloud workers alike). */
export function costGuardOf(ctx: RunContext): CostGuard {
  ctx.guard ??= newCostGuard(ctx, ctx);
  return ctx.guard;
}

/**
 * The output limit a generation call of `prompt` sends: the run's max tokens, or more where the
 * provider raises it (a model that cannot turn its thinking off gets its budget on top), so the
 * cost guard reserves what the call may really bill. A setting the provider refuses was refused
 * when the run was planned; here it falls back to the run's value and the call reports it.
 */
export function sentMaxTokens(ctx: RunContext, prompt: Prompt): number {
  const params = ctx.manifest.params;
  try {
    return Math.max(params.maxTokens, ctx.provider.adaptParams?.(params, prompt.style).maxTokens ?? params.maxTokens);
  } catch {
    return params.maxTokens;
  }
}

/** generate: prompt → provider → post-processing. Provider failures become an SE record, not a crash. */
export async function generateItem(ctx: RunContext, item: WorkItem): Promise<GeneratedItem> {
  const task = taskOf(ctx, item);
  const { benchmark } = ctx;
  const prompt = benchmark.buildPrompt(task, { pool: ctx.pool, ...(item.language ? { language: item.language } : {}) });
  // A scorer may score the benchmark's choices instead of generating text (likert's log-probability modes).
  const byChoices = scorerOf(ctx, task).choiceGeneration?.(ctx);
  const calls = byChoices?.calls ?? 1;
  const maxTokens = byChoices?.maxTokens ?? sentMaxTokens(ctx, prompt);
  const estimate = ctx.projectCost?.(prompt, maxTokens, calls) ?? 0;
  const guard = costGuardOf(ctx);
  // Stops before a call could overspend: spent, reserved by calls in flight, and this call.
  const reservation = await guard.reserve(estimate, callIdOf(item), { oneAtATimeUntilCalibrated: true });
  const base = { item, usage: null, latencyMs: null, attempts: 0 };
  try {
    // Settled through the context's ledger: a cloud generate invocation's batches its bookings (booking-batch.ts).
    return await callProvider(ctx, task, item, prompt, byChoices, base, (usage) => guard.settle(reservation, usage, ctx.ledger));
  } finally {
    await guard.release(reservation);
  }
}

/**
 * The id the item's model call is booked under: the item's, so a redelivered message (at-least-
 * once queues, a retried Lambda) books it once whatever it re-does. An item run again on
 * purpose (an SE sample on resume) has none: each of its calls is booked.
 */
export function callIdOf(item: WorkItem): string | undefined {
  return item.previousVerdict === undefined ? itemId(item.runId, item.taskId, item.sample) : undefined;
}

async function callProvider(
  ctx: RunContext,
  task: Task,
  item: WorkItem,
  prompt: Prompt,
  byChoices: ChoiceGeneration | undefined,
  base: Pick<GeneratedItem, 'item' | 'usage' | 'latencyMs' | 'attempts'>,
  charge: (usage: TokenUsage) => Promise<number>,
): Promise<GeneratedItem> {
  const { benchmark, provider } = ctx;
  try {
    if (byChoices) return { ...base, ...(await byChoices.generate(task, prompt, charge)) };
    const reference = benchmark.reference(task, item.language, item.sample);
    const generation = await provider.generate({
      taskId: task.id,
      sample: item.sample,
      prompt,
      params: ctx.manifest.params,
      ...(item.language ? { language: item.language } : {}),
      ...(reference !== undefined ? { reference } : {}),
    });
    await charge(generation.usage);
    const answer = benchmark.postprocess(generation.text, task, item.language);
    const out: GeneratedItem = {
      ...base,
      raw: generation.text,
      answer,
      usage: generation.usage,
      latencyMs: generation.latencyMs,
      attempts: generation.attempts ?? 1,
      ...(generation.refusal ? { refusal: generation.refusal } : {}),
      ...scorerOf(ctx, task).textEvidence?.(answer),
    };
    return out;
  } catch (error) {
    // A transient failure (a batch of cost bookings the ledger did not take): the item's message comes back, never SE.
    if (error instanceof InputError || error instanceof RunStopped || error instanceof TransientError) throw error;
    const message = error instanceof ProviderError ? error.message : `provider failed: ${(error as Error).message}`;
    // A quota, not the item: back to the queue (nothing was billed for a throttled call).
    if (ctx.requeueThrottled === true && error instanceof ProviderError && error.throttled && error.retryable)
      throw new QuotaExhausted(`generation throttled: ${message}`, { cause: error });
    // Calls billed before the failure (a 200 whose body was unusable) still count in tokens and cost.
    const billed = error instanceof ProviderError ? error.billed : undefined;
    if (billed) await charge(billed);
    return { ...base, raw: '', answer: '', usage: billed ?? null, failure: `generation: ${message}` };
  }
}

/** score: by the task's scorer (likert in process; io-tests and unit-tests through the Executor port). */
export async function scoreItem(ctx: RunContext, generated: GeneratedItem): Promise<ScoreOutcome> {
  if (generated.failure) return { verdict: 'SE', testsPassed: 0, testsTotal: 0, error: generated.failure };
  const outcome = await scoreTask(ctx, generated);
  // The model's own reason for an empty answer explains the verdict better than the scorer's.
  if (generated.refusal) outcome.error = outcome.error ? `${generated.refusal}; ${outcome.error}` : generated.refusal;
  return outcome;
}

function scoreTask(ctx: RunContext, generated: GeneratedItem): Promise<ScoreOutcome> {
  const task = taskOf(ctx, generated.item);
  return scorerOf(ctx, task).score(ctx, task, generated);
}

/** The record row of one scored sample (DESIGN §5 columns). */
export function buildRecord(ctx: RunContext, generated: GeneratedItem, outcome: ScoreOutcome): RunRecord {
  const task = taskOf(ctx, generated.item);
  const m = ctx.manifest;
  return {
    run_id: m.run_id,
    benchmark: m.benchmark.id,
    split: task.split,
    model: m.model.name,
    provider: m.model.kind,
    task_id: task.id,
    sample: generated.item.sample,
    language: generated.item.language ?? null,
    difficulty: task.difficulty ?? null,
    subtask: task.slices.subtask ?? null,
    verdict: outcome.verdict,
    tests_passed: outcome.testsPassed,
    tests_total: outcome.testsTotal,
    compile_ms: outcome.compileMs ?? null,
    run_ms: outcome.runMs ?? null,
    peak_memory_kb: outcome.peakMemoryKb ?? null,
    prompt_tokens: generated.usage?.promptTokens ?? null,
    completion_tokens: generated.usage?.completionTokens ?? null,
    predicted: outcome.predicted ?? null,
    gold: outcome.gold ?? null,
    gold_mean: outcome.goldMean ?? null,
    answer: scorerOf(ctx, task).recordAnswer?.(generated, outcome) ?? generated.answer,
    error: outcome.error ? outcome.error.slice(0, 500) : null,
    created_at: ctx.clock().toISOString(),
  };
}

/**
 * record: writes the item under its deterministic key (a second delivery overwrites the
 * same key) and counts it in the ledger through a conditional write.
 */
export async function recordItem(ctx: RunContext, generated: GeneratedItem, outcome: ScoreOutcome): Promise<RunRecord> {
  const record = buildRecord(ctx, generated, outcome);
  const { item } = generated;
  const doc: ItemDocument = {
    item_id: itemId(item.runId, item.taskId, item.sample),
    record,
    raw: generated.raw,
    generation: {
      usage: generated.usage,
      latency_ms: generated.latencyMs,
      attempts: generated.attempts,
      ...(generated.batchJob !== undefined ? { batch_job: generated.batchJob } : {}),
    },
    outcome,
    ...(item.sample === 0 ? { task_view: viewOf(ctx, item) } : {}),
  };
  await ctx.store.put(keys.item(item.runId, item.taskId, item.sample), storedJson(doc), 'application/json');
  const first = await ctx.ledger.recordItem(item.runId, doc.item_id, record.verdict);
  if (!first && item.previousVerdict && item.previousVerdict !== record.verdict) {
    await ctx.ledger.reviseItem(item.runId, doc.item_id, item.previousVerdict, record.verdict);
  }
  ctx.onEvent?.({ type: 'recorded', item, verdict: record.verdict });
  return record;
}

function viewOf(ctx: RunContext, item: WorkItem): TaskView {
  const task = taskOf(ctx, item);
  return taskView(task, ctx.benchmark.buildPrompt(task, { pool: ctx.pool, ...(item.language ? { language: item.language } : {}) }), scorerOf(ctx, task));
}
