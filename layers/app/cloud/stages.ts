/**
 * generate and execute in the cloud: the engine's generateItem / scoreItem / recordItem for
 * one message, plus what queues add — skip an item already recorded (a redelivery costs no
 * second model call or sandbox run) or of a cancelled run, route code to the execute queue of
 * its language (as a pointer to S3 when too large for SQS), count each record in its records
 * part, and the completion check after each record.
 */
import type { RunLedger, RunStatus, WorkQueue } from '#core/ports.ts';
import { generateItem, recordItem, scoreItem, parseItemDocument, type GeneratedItem, type RunContext } from '#core/run/index.ts';
import { itemId, keys } from '#core/run/index.ts';
import { decideItem, stageErrorDecision, statusOfStageError } from '#core/run/index.ts';
import type { WorkItem } from '#core/run/index.ts';
import { scorerOf } from '#core/scorers/index.ts';
import type { Task, Verdict } from '#core/types.ts';
import { countAndCheckCompletion, reaggregateLate } from './completion.ts';
import type { RunContextCache } from './context.ts';
import type { PartCounter } from '#aws/index.ts';
import { resolveGenerated, toMessage } from './large-messages.ts';
import type { AggregateMessage, CloudWorkItem, GeneratedMessage } from './messages.ts';
import type { BookingBatch } from './booking-batch.ts';
import type { RecordBatch } from './record-batch.ts';
import { countResumed, isResumePart } from './resume.ts';

type Sender<T> = Pick<WorkQueue<T>, 'send'>;

export interface StageDeps {
  contexts: RunContextCache;
  ledger: RunLedger;
  aggregateQueue: Sender<AggregateMessage>;
  /** Counts records per records part (layers/app/cloud/record-parts.ts). */
  parts: PartCounter;
  /** The judge invocation's records, counted in the ledger together (record-batch.ts); absent: each on its own. */
  records?: RecordBatch;
  /** Runs an item's scoring alone in this environment (continuation.ts); absent: at once. */
  alone?: ScoreAlone;
}

/**
 * Runs one item's scoring (and the judge's after-item check with it) alone in this environment.
 * The judge is sized for its Node and ONE checker program at its limit (1,024 MB, io-tests-judge.ts
 * CHECKER_LIMITS; layers/app/cloud/function-memory.ts judgeFloorMb), and the after-item check takes
 * any live sandbox process for a leftover: the items of a batch are scored one at a time. Only the
 * scoring: an item waiting for its batch's ledger count (record-batch.ts) must not hold the others back.
 */
export type ScoreAlone = <T>(score: () => Promise<T>) => Promise<T>;

export interface GenerateDeps extends StageDeps {
  /** Lambda execute queues by language. */
  executeQueues: Readonly<Record<string, Sender<GeneratedMessage>>>;
  /** Fargate execute queues by language (empty without the Fargate lane). */
  fargateQueues: Readonly<Record<string, Sender<GeneratedMessage>>>;
  /** The generate invocation's cost bookings, made in the ledger together (booking-batch.ts); absent: each on its own. */
  bookings?: BookingBatch;
}

export type StageOutcome =
  | { status: 'recorded'; verdict: Verdict }
  | { status: 'skipped' }
  | { status: 'sent'; language: string; lane: 'lambda' | 'fargate' }
  /** The judge invoked its runner asynchronously; the item continues when it answers (continuation.ts). */
  | { status: 'handed-off' }
  | { status: 'stopped' | 'failed'; reason: string };

/** What one execution may take on Lambda (the judge's 5 min timeout, with a minute of headroom); longer goes to Fargate. */
export const LAMBDA_BUDGET_MS = 240_000;
/**
 * A compilation's worst case in the runner: its wall-clock safety net (2 × the 60 s compile
 * limit, runner-plan.ts), not the CPU limit — a compile under load reaches it.
 */
const COMPILE_WALL_MS = 120_000;
/**
 * Assumed: a runner's cold start (a container image in a VPC: the image, the runtime, the
 * sandbox's set-up). Lambda documents no figure; the judge waits for it all the same.
 */
export const RUNNER_COLD_START_MS = 10_000;

/** A code sample's worst-case time in its judge: the runner's cold start, its compile and every test's limit. */
export function worstCaseMs(task: Task, timeScale: number): number {
  const perTest = scorerOf(task).testTimeMs(task);
  return RUNNER_COLD_START_MS + COMPILE_WALL_MS + perTest * timeScale;
}

/**
 * The lane of a code sample: Fargate when its worst case does not fit the Lambda judge's
 * budget and the lane exists. A judge that times out leaves its runner billing on and its
 * message to come back (up to maxReceiveCount times), so the budget counts everything the
 * judge waits for.
 */
export function laneFor(task: Task, timeScale: number, hasFargate: boolean): 'lambda' | 'fargate' {
  if (!hasFargate || !scorerOf(task).needsExecutor) return 'lambda';
  return worstCaseMs(task, timeScale) > LAMBDA_BUDGET_MS ? 'fargate' : 'lambda';
}

/**
 * A delivered item whose record is stored (lifecycle.ts decideItem): count it (a no-op when
 * counted; needed when the previous delivery died between the store write and the ledger
 * write) and skip the work — unless the message is a resume's re-run of that record (SE).
 *
 * One S3 GET of the item's document. Per item the cloud makes it once, in the look right before
 * recording (the judge's, scoreAndRecord; or generate's for a record it makes itself), which is
 * what keeps an item recorded once. It reads the document, not the ledger's item row, because
 * the document is written first: a row missing while a racing delivery is between its store write
 * and its count would let this delivery's verdict overwrite a document that is then counted with
 * the other's; a document written is read at once. (The aggregate reads each document once more,
 * to compact the records: record-parts.ts.)
 */
export async function alreadyRecorded(ctx: RunContext, item: WorkItem): Promise<boolean> {
  const key = keys.item(item.runId, item.taskId, item.sample);
  const text = await ctx.store.getText(key);
  const doc = text === undefined ? undefined : parseItemDocument(text, ctx.store.locate(key));
  const decision = decideItem({ stored: doc?.record.verdict, on: 'delivery', ...(item.previousVerdict ? { previousVerdict: item.previousVerdict } : {}) });
  if (doc && decision.recount) await ctx.ledger.recordItem(item.runId, itemId(item.runId, item.taskId, item.sample), doc.record.verdict);
  return decision.action === 'skip';
}

/** Stops the run on purpose (cost cap) or fails it (bad data); anything else is the message's to retry (lifecycle.ts stageErrorDecision). */
async function settle(ledger: RunLedger, runId: string, error: unknown): Promise<StageOutcome> {
  const decision = stageErrorDecision(error, { redelivers: true });
  const status = statusOfStageError(decision);
  if (status === undefined) throw error;
  const reason = (error as Error).message;
  await ledger.setStatus(runId, status, reason);
  return { status: decision === 'stop' ? 'stopped' : 'failed', reason };
}

/** The record's bookkeeping: its part's count (and the part's compaction), then the run's completion. Returns whether the run's aggregate message was sent. */
export async function afterRecord(deps: StageDeps, item: CloudWorkItem): Promise<boolean> {
  // An item a resume sent: the resume's own count says when the run is ready again (its SEs were counted already).
  if (isResumePart(item.part)) {
    await countResumed(deps.parts, deps.aggregateQueue, item);
    return false;
  }
  // The run's completion is checked by the record that completes its part (completion.ts).
  return countAndCheckCompletion(deps, item);
}

/**
 * Scores and records one item. `status`: the run's status as this delivery read it (stages read it
 * first, for a cancel): a record made for a run the watchdog already closed (`completed_with_missing`),
 * or was closing, is a late one, and the run is aggregated again so its summary counts it (completion.ts reaggregateLate).
 */
async function scoreAndRecord(
  deps: StageDeps,
  ctx: RunContext,
  generated: GeneratedItem,
  lookBeforeRecording = false,
  status?: RunStatus,
): Promise<StageOutcome> {
  const outcome = await (deps.alone ?? ((score) => score()))(() => scoreItem(ctx, generated));
  if (lookBeforeRecording && (await alreadyRecorded(ctx, generated.item))) {
    await afterRecord(deps, generated.item);
    return { status: 'skipped' };
  }
  const record = await recordItem(deps.records ? { ...ctx, ledger: deps.records.over(ctx.ledger) } : ctx, generated, outcome);
  const aggregated = await afterRecord(deps, generated.item);
  // `aggregating`: the watchdog's aggregation may have read this item's part before the record (a finished run's is skipped).
  if ((status === 'completed_with_missing' || status === 'aggregating') && !aggregated) await reaggregateLate(deps.aggregateQueue, generated.item.runId);
  return { status: 'recorded', verdict: record.verdict };
}

/** The run's status (one read; a handler's ledger shares it per invocation: status-once.ts). Work of a cancelled run is taken off the queue without being done. */
async function statusOf(ledger: RunLedger, runId: string): Promise<RunStatus | undefined> {
  return ledger.runStatus(runId);
}

/**
 * A delivered item the ledger counts (its item row, {@link RunLedger.countedVerdict}): skip it
 * unless the message is a resume's re-run of that record (lifecycle.ts decideItem). Counted means
 * stored (the store write comes first), so nothing is to be recounted. Not counted is not proof
 * of not stored (a delivery that died between the two writes, or a count this eventually
 * consistent read missed): the caller then looks at the stored record before recording.
 */
async function alreadyCounted(ledger: RunLedger, item: WorkItem, counted: NonNullable<RunLedger['countedVerdict']>): Promise<boolean> {
  const verdict = await counted.call(ledger, item.runId, itemId(item.runId, item.taskId, item.sample));
  const previous = item.previousVerdict ? { previousVerdict: item.previousVerdict } : {};
  return decideItem({ stored: verdict, counted: verdict !== undefined, on: 'delivery', ...previous }).action === 'skip';
}

/**
 * generate: one work item → a record (likert, failed generations) or a message to its executor.
 *
 * Its first look (is the item recorded already?) saves a second model call for a redelivered or
 * duplicated message (at-least-once delivery: a copy received once the item is recorded; issue
 * 35's simulation, 0.5 % of receives copied, put dropping it at 39 more model calls per 10,000
 * items, $0.017, against the $0.004 of GETs it saved). It asks the ledger's item row, half a
 * DynamoDB read unit, not the item's document in S3 (a GET: 6.4× that; issue 35, 3 item GETs an
 * item → 2). That look only saves work: the record is kept once by the look before recording —
 * the judge's (executeWork) for a code sample, generate's own (scoreAndRecord) for a record made
 * here — which reads the stored record, so a delivery that died between the store write and the
 * count is counted there. Without `countedVerdict` (a ledger that has none) the first look reads
 * the stored record, as before.
 */
export async function generateWork(deps: GenerateDeps, item: CloudWorkItem): Promise<StageOutcome> {
  const status = await statusOf(deps.ledger, item.runId);
  if (status === 'cancelled') return { status: 'skipped' };
  const ctx = await deps.contexts.get(item.runId);
  const counted = deps.ledger.countedVerdict;
  const lookBeforeRecording = counted !== undefined;
  if (counted ? await alreadyCounted(deps.ledger, item, counted) : await alreadyRecorded(ctx, item)) {
    await afterRecord(deps, item);
    return { status: 'skipped' };
  }
  let generated: GeneratedItem;
  try {
    // The invocation's model calls booked together (booking-batch.ts); absent: each on its own.
    generated = await generateItem(deps.bookings ? { ...ctx, ledger: deps.bookings.over(ctx.ledger) } : ctx, item);
  } catch (error) {
    return settle(deps.ledger, item.runId, error);
  }
  return routeGenerated(deps, ctx, generated, lookBeforeRecording, status);
}

/**
 * Where a generation goes (on demand or read back from a batch job): scored and recorded here
 * (likert, failed generations), or sent to the execute queue of its language.
 * `lookBeforeRecording`: the item was not looked up before its generation (generateWork), so a
 * record made here looks first; a sample sent to its judge is looked up there.
 */
export async function routeGenerated(
  deps: GenerateDeps,
  ctx: RunContext,
  generated: GeneratedItem,
  lookBeforeRecording = false,
  /** The run's status as the delivery read it (scoreAndRecord). */
  status?: RunStatus,
): Promise<StageOutcome> {
  const item = generated.item as CloudWorkItem;
  const task = ctx.tasks.get(item.taskId);
  if (task === undefined || !scorerOf(task).needsExecutor || generated.failure !== undefined)
    return scoreAndRecord(deps, ctx, generated, lookBeforeRecording, status);
  const language = item.language ?? scorerOf(task).languageOf(task);
  if (language === undefined) return scoreAndRecord(deps, ctx, { ...generated, failure: `no language for task ${task.id}` }, lookBeforeRecording, status);
  const lane = laneFor(task, ctx.manifest.time_scale, deps.fargateQueues[language] !== undefined);
  const queue = lane === 'fargate' ? deps.fargateQueues[language] : deps.executeQueues[language];
  if (queue === undefined) {
    // A deployment without this language's executor: the harness's fault (SE), never the model's.
    return scoreAndRecord(deps, ctx, { ...generated, failure: `no executor is deployed for language ${language}` }, lookBeforeRecording, status);
  }
  await queue.send([{ id: itemId(item.runId, item.taskId, item.sample), body: await toMessage(ctx.store, generated) }]);
  return { status: 'sent', language, lane };
}

/**
 * When the judge looks its item up (is it recorded already?). `lookBeforeRecording`: once, right
 * before recording, instead of before its sandbox run. A judge that hands off to its runner
 * looked the item up in both of its passes (issue 35: one S3 GET an item saved): its first pass
 * ends by handing off, and its message is then deleted, or fails having recorded nothing, so the
 * lookup that keeps the item recorded once is the one before recording (in its continuation). A
 * synchronous judge's first delivery (ApproximateReceiveCount 1) looks late too: it is recorded
 * already only when it is a second copy (at-least-once delivery, a redelivered generate), whose
 * program then runs and is not recorded. With the hand-off a redelivery looks late too, so a
 * recorded item's redelivered message invokes its runner again (its continuation looks before
 * recording: never a second record). Looking first on a redelivery cost more than it saved: a
 * throttled or failed invoke returns the mapping's messages, so most execute messages were
 * received more than once in the simulation (item GETs back to 4.0 an item from 3.0).
 */
export interface Delivery {
  lookBeforeRecording?: boolean;
}

/** execute: one generated code sample (or its pointer in S3) → sandbox verdict → record. */
export async function executeWork(deps: StageDeps, message: GeneratedMessage, delivery: Delivery = {}): Promise<StageOutcome> {
  const status = await statusOf(deps.ledger, message.item.runId);
  if (status === 'cancelled') return { status: 'skipped' };
  const ctx = await deps.contexts.get(message.item.runId);
  const lookBeforeRecording = delivery.lookBeforeRecording === true;
  if (!lookBeforeRecording && (await alreadyRecorded(ctx, message.item))) {
    await afterRecord(deps, message.item);
    return { status: 'skipped' };
  }
  const generated = await resolveGenerated(ctx.store, message);
  try {
    return await scoreAndRecord(deps, ctx, generated, lookBeforeRecording, status);
  } catch (error) {
    return settle(deps.ledger, generated.item.runId, error);
  }
}
