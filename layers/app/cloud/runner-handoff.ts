/**
 * The judge's asynchronous hand-off to its runner: the judge does not bill while the runner
 * works. The judge scores an item with the same scorer as locally; when the scorer asks the
 * runner for its first unanswered job, the judge invokes the runner asynchronously
 * (`InvocationType: Event`) with that request and a hand-off (the item's message and the
 * answers so far), and returns. Lambda sends the invocation record (the request as sent and
 * the runner's answer) to the runner's destination queue, which the judge function consumes:
 * the continuation scores the item again from the start, with the runner's invoke answering
 * from the recorded answers in order, so the judge's inputs — and hence its requests — are the
 * same, and the scorer reaches the next unanswered job (another hand-off) or its verdict.
 * Scorers and verdicts are core's, untouched (layers/core/scorers, layers/sandbox/executor.ts).
 *
 * Limits (docs/aws.md "Asynchronous hand-off"):
 * - an asynchronous invocation's payload: 1 MB (Lambda API reference, Invoke, read 2026-12-06:
 *   "For asynchronous invocations, the maximum payload size is 1 MB"; "AWS Lambda increases maximum payload size
 *   from 256 KB to 1 MB for asynchronous invocations", October 2025; AWS Compute Blog "More
 *   room to build: serverless services now support payloads up to 1 MB", 29 January 2026);
 * - the destination record carries the request AND the response, and must fit one SQS message
 *   (1 MiB since August 2025); a record Lambda cannot deliver is lost ("Delivery errors can
 *   also occur due to … size limits", Lambda developer guide, "Capturing records of Lambda
 *   asynchronous invocations"). So the judge lowers each run's output share until request,
 *   worst-case answer and envelope fit {@link RECORD_BUDGET_BYTES}; a request that cannot fit
 *   is made synchronously, as before, and so is a run still `truncated` when asked alone.
 * The runner's answer is untrusted and read by the same strict parser as a synchronous one
 * (lambda-runner.ts): malformed, it is the sample's SE. A replay whose request differs from the
 * recorded one (it cannot, unless the judge's code changed between hand-offs) is SE too.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { HarnessError, TransientError } from '#core/errors.ts';
import type { InvokeResult } from '#aws/index.ts';
import { isBatchRequest, jsonBytes, RunnerRequestSchema, type RunnerBatchRequest, type RunnerRequest } from './runner-protocol.ts';
import { COMPILE_WALL_MS, RUNNER_TIME_BUDGET_MS } from './runner-plan.ts';

/** What a destination record may carry: SQS's 1 MiB message, less room for the record's own fields. */
export const RECORD_BUDGET_BYTES = 1024 * 1024 - 64 * 1024;
/** Per run, what an answer adds beyond stdout and files (stderr's head, times, exit status: runner-protocol.ts fitRun). */
const RUN_OVERHEAD_BYTES = 8 * 1024 + 512;
/** Compiler diagnostics and the integrity report an answer may carry (functions/runner/serve.ts). */
const ANSWER_OVERHEAD_BYTES = 64 * 1024 + 16 * 1024;
/** A run's output share below which the hand-off is not worth it (the answer would come back truncated). */
const MIN_SHARE_BYTES = 4 * 1024;

/** One runner answer, as `invoke` returned it (or the destination record carried it), keyed by the request it answers. */
const RecordedAnswerSchema = z
  .object({
    /** sha256 of the request the judge made (before its output share was lowered). */
    request: z.string(),
    /** The request's output share was lowered to fit the record. */
    lowered: z.boolean(),
    functionError: z.string().optional(),
    payload: z.string(),
  })
  .strict();
export type RecordedAnswer = z.infer<typeof RecordedAnswerSchema>;

/** What travels beside the request, through the runner's event, back to the judge in the record. */
export const HandoffSchema = z
  .object({
    version: z.literal(1),
    /** The execute message as the judge received it (a generated item or its pointer). */
    message: z.unknown(),
    answers: z.array(RecordedAnswerSchema),
    /** The request this invocation answers. */
    pending: z.object({ request: z.string(), lowered: z.boolean() }).strict(),
  })
  .strict();
export type Handoff = z.infer<typeof HandoffSchema>;

/** The runner's asynchronous event: its request, and the hand-off it never reads. */
export interface HandoffEvent {
  request: RunnerRequest;
  handoff: Handoff;
}

/** Several items' runner jobs in one asynchronous invocation: the requests as one batch request, each item's hand-off in the same order. */
export interface BatchHandoffEvent {
  request: RunnerBatchRequest;
  handoffs: Handoff[];
}

/** The scorer asked for a runner job that has no answer yet: the item continues when it comes. */
export class HandedOff extends TransientError {
  override name = 'HandedOff';
  constructor(readonly event: HandoffEvent) {
    super('runner job handed off: the item continues when the runner answers');
  }
}

interface Scope {
  message: unknown;
  answers: RecordedAnswer[];
  next: number;
  budgetBytes: number;
}

const scope = new AsyncLocalStorage<Scope>();

/** Runs `work` (one item's scoring) with runner jobs answered from `answers`, the first unanswered one handed off. */
export function withHandoff<T>(message: unknown, answers: readonly RecordedAnswer[], work: () => Promise<T>, budgetBytes = RECORD_BUDGET_BYTES): Promise<T> {
  return scope.run({ message, answers: [...answers], next: 0, budgetBytes }, work);
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * The runner's `invoke` for a judge that hands off: outside {@link withHandoff} (the Fargate
 * lane, a local harness) it is `sync`; inside, the k-th call is answered by the k-th recorded
 * answer, and the first unanswered one throws {@link HandedOff} — or, when it cannot fit a
 * record, is made with `sync` and recorded, so a later hand-off carries it.
 */
export function handoffInvoke(sync: (payload: string) => Promise<InvokeResult>): (payload: string) => Promise<InvokeResult> {
  return async (payload) => {
    const state = scope.getStore();
    if (state === undefined) return sync(payload);
    const request = sha256(payload);
    const k = state.next++;
    const recorded = state.answers[k];
    if (recorded !== undefined) {
      if (recorded.request !== request)
        throw new HarnessError(`hand-off replay diverged at runner job ${k + 1}: the judge asked another request than the one answered`);
      if (!(recorded.lowered && truncatedAlone(payload, recorded))) return answerOf(recorded);
      // Asked alone with the share a record allows and still truncated: ask synchronously with the whole response.
      const answer = await sync(payload);
      state.answers[k] = { request, lowered: false, ...answer };
      return answer;
    }
    const event = handoffEvent(payload, request, state);
    if (event === undefined) {
      const answer = await sync(payload);
      state.answers.push({ request, lowered: false, ...answer });
      return answer;
    }
    throw new HandedOff(event);
  };
}

function answerOf(recorded: RecordedAnswer): InvokeResult {
  return { payload: recorded.payload, ...(recorded.functionError !== undefined ? { functionError: recorded.functionError } : {}) };
}

/** A one-run request whose answer (read loosely: the strict read is lambda-runner's) says `truncated`. */
function truncatedAlone(payload: string, recorded: RecordedAnswer): boolean {
  if (recorded.functionError !== undefined) return false;
  try {
    const request = JSON.parse(payload) as { runs?: unknown[] };
    const answer = JSON.parse(recorded.payload) as { runs?: { truncated?: unknown }[] };
    return request.runs?.length === 1 && answer.runs?.[0]?.truncated === true;
  } catch {
    return false;
  }
}

/** The event for an asynchronous invocation, its output share lowered to fit a record; undefined when it cannot fit. */
function handoffEvent(payload: string, request: string, state: Scope): HandoffEvent | undefined {
  const parsed = RunnerRequestSchema.safeParse(JSON.parse(payload));
  if (!parsed.success) return undefined;
  const runs = parsed.data.runs.length;
  const base = {
    request: { ...parsed.data, maxRunOutputBytes: 1 },
    handoff: { version: 1 as const, message: state.message, answers: state.answers, pending: { request, lowered: false } },
  };
  // Lambda records the request as sent; the answer's worst case is every run's share plus its overhead.
  const room = state.budgetBytes - 2 * jsonBytes(base) - ANSWER_OVERHEAD_BYTES - runs * RUN_OVERHEAD_BYTES;
  const share = Math.min(parsed.data.maxRunOutputBytes, Math.floor(room / runs));
  if (share < Math.min(MIN_SHARE_BYTES, parsed.data.maxRunOutputBytes)) return undefined;
  const lowered = share < parsed.data.maxRunOutputBytes;
  return { request: { ...parsed.data, maxRunOutputBytes: share }, handoff: { ...base.handoff, pending: { request, lowered } } };
}

/**
 * An asynchronous invocation record as Lambda sends it to a destination (Lambda developer
 * guide, "Capturing records of Lambda asynchronous invocations": `version`, `timestamp`,
 * `requestContext` {requestId, functionArn, condition: Success | RetriesExhausted |
 * EventAgeExceeded, approximateInvokeCount}, `requestPayload` (the event as sent),
 * `responseContext` {statusCode, executedVersion, functionError}, `responsePayload`).
 */
export const DestinationRecordSchema = z.object({
  version: z.string(),
  requestContext: z.object({ requestId: z.string(), functionArn: z.string(), condition: z.string(), approximateInvokeCount: z.number().optional() }),
  requestPayload: z.unknown(),
  responseContext: z.object({ statusCode: z.number().optional(), executedVersion: z.string().optional(), functionError: z.string().optional() }).optional(),
  responsePayload: z.unknown().optional(),
});
export type DestinationRecord = z.infer<typeof DestinationRecordSchema>;

/** Whether a judge's message is a runner's invocation record (else it is an execute message). */
export function isDestinationRecord(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'requestContext' in body && 'requestPayload' in body;
}

/**
 * The item's message and its answers so far, the recorded one last. An invocation that did not
 * answer (its event aged out, or the runner failed: condition other than Success) is the
 * answer of a failed runner, as a synchronous invoke that failed: the scorer's harness retry
 * asks once more (another hand-off), then the sample is SE.
 * @throws HarnessError when the record is not one of our hand-offs (nothing to continue)
 */
export function continuationOf(body: unknown): { message: unknown; answers: RecordedAnswer[] } {
  const record = DestinationRecordSchema.safeParse(body);
  if (!record.success) throw new HarnessError(`malformed runner invocation record: ${record.error.issues[0]?.message ?? ''}`);
  const event = record.data.requestPayload as { handoff?: unknown } | undefined;
  const handoff = HandoffSchema.safeParse(event?.handoff);
  if (!handoff.success) throw new HarnessError(`runner invocation record ${record.data.requestContext.requestId} carries no hand-off`);
  const { condition } = record.data.requestContext;
  const response = record.data.responsePayload;
  const functionError = record.data.responseContext?.functionError;
  let answer: Omit<RecordedAnswer, 'request' | 'lowered'>;
  if (response === undefined || response === null) {
    answer = {
      functionError: 'Lost',
      payload: JSON.stringify({ errorType: 'RunnerLost', errorMessage: `the runner invocation ended without an answer (${condition})` }),
    };
  } else {
    const payload = typeof response === 'string' ? response : JSON.stringify(response);
    answer = functionError !== undefined || condition !== 'Success' ? { functionError: functionError ?? condition, payload } : { payload };
  }
  return { message: handoff.data.message, answers: [...handoff.data.answers, { ...handoff.data.pending, ...answer }] };
}

/** A run's output share a batch aims to give each run (most answers are far smaller; a larger one comes back `truncated` and is asked again alone). */
const GROUP_SHARE_BYTES = 16 * 1024;

/** What a hand-off's record costs with this output share per run: the request twice (as sent, and in the record), the answer's worst case. */
function recordCost(event: HandoffEvent, share: number): number {
  const runs = event.request.runs.length;
  return 2 * jsonBytes({ ...event, request: { ...event.request, maxRunOutputBytes: 1 } }) + ANSWER_OVERHEAD_BYTES + runs * (RUN_OVERHEAD_BYTES + share);
}

/** A program's worst case in the runner: its compile's wall-clock net and every run's wall limit. */
function worstMs(event: HandoffEvent): number {
  return COMPILE_WALL_MS + event.request.runs.reduce((sum, run) => sum + run.limits.wallMs, 0);
}

/**
 * The asynchronous invocations for these hand-offs (items of one task, for one runner): as
 * many as fit together in one invocation's record ({@link RECORD_BUDGET_BYTES}: requests,
 * hand-offs and every answer's worst case, each run at a share of up to 16 KiB) and in the
 * runner's time budget (every program's compile net and wall limits, runner-plan.ts) go in
 * one batch event; the room left is shared out again so no run gets less than that. A hand-off
 * that fits with no other stays a single event, exactly as before. Order is kept.
 */
export function combineHandoffs(events: readonly HandoffEvent[], budget: { recordBytes?: number; timeMs?: number } = {}): (HandoffEvent | BatchHandoffEvent)[] {
  const recordBytes = budget.recordBytes ?? RECORD_BUDGET_BYTES;
  const timeMs = budget.timeMs ?? RUNNER_TIME_BUDGET_MS;
  const share = (event: HandoffEvent) => Math.min(GROUP_SHARE_BYTES, event.request.maxRunOutputBytes);
  const groups: HandoffEvent[][] = [];
  let group: HandoffEvent[] = [];
  let bytes = 0;
  let time = 0;
  for (const event of events) {
    const cost = recordCost(event, share(event));
    const ms = worstMs(event);
    if (group.length > 0 && (bytes + cost > recordBytes || time + ms > timeMs)) {
      groups.push(group);
      group = [];
      bytes = 0;
      time = 0;
    }
    group.push(event);
    bytes += cost;
    time += ms;
  }
  if (group.length > 0) groups.push(group);
  return groups.map((members) => {
    if (members.length === 1) return members[0] as HandoffEvent;
    // The room beyond each run's group share goes back to the runs, evenly, never above what each asked.
    const fixed = members.reduce((sum, e) => sum + recordCost(e, 0), 0);
    const runs = members.reduce((sum, e) => sum + e.request.runs.length, 0);
    const even = Math.floor((recordBytes - fixed) / runs);
    const lowered = members.map((e) => {
      const give = Math.min(e.request.maxRunOutputBytes, Math.max(share(e), even));
      return {
        request: { ...e.request, maxRunOutputBytes: give },
        handoff: { ...e.handoff, pending: { ...e.handoff.pending, lowered: e.handoff.pending.lowered || give < e.request.maxRunOutputBytes } },
      };
    });
    return { request: { version: 1 as const, programs: lowered.map((e) => e.request) }, handoffs: lowered.map((e) => e.handoff) };
  });
}

/** An item's message and its answers so far, the recorded one last (one per item of the invocation). */
export interface Continuation {
  message: unknown;
  answers: RecordedAnswer[];
}

/**
 * Every item an invocation record continues: one for a single hand-off ({@link continuationOf}),
 * one per program for a batch. A batch whose invocation did not answer (its event aged out, the
 * runner failed or timed out) gives each of its items the answer of a failed runner, so each
 * goes its own retry/SE way; an answer that is not one per program is given whole to every
 * item, whose strict read (lambda-runner.ts) makes it that sample's SE, as a malformed single answer.
 * @throws HarnessError when the record is not one of our hand-offs (nothing to continue)
 */
export function continuationsOf(body: unknown): Continuation[] {
  const record = DestinationRecordSchema.safeParse(body);
  if (!record.success) throw new HarnessError(`malformed runner invocation record: ${record.error.issues[0]?.message ?? ''}`);
  const event = record.data.requestPayload as { request?: unknown; handoffs?: unknown } | undefined;
  if (event?.handoffs === undefined) return [continuationOf(body)];
  const handoffs = z.array(HandoffSchema).min(1).safeParse(event.handoffs);
  if (!handoffs.success || !isBatchRequest(event.request))
    throw new HarnessError(`runner invocation record ${record.data.requestContext.requestId} carries no hand-off`);
  const { condition } = record.data.requestContext;
  const response = record.data.responsePayload;
  const functionError = record.data.responseContext?.functionError;
  const n = handoffs.data.length;
  let answers: Omit<RecordedAnswer, 'request' | 'lowered'>[];
  if (response === undefined || response === null) {
    const lost = {
      functionError: 'Lost',
      payload: JSON.stringify({ errorType: 'RunnerLost', errorMessage: `the runner invocation ended without an answer (${condition})` }),
    };
    answers = handoffs.data.map(() => lost);
  } else {
    const payload = typeof response === 'string' ? response : JSON.stringify(response);
    const parsed = jsonOf(payload) as { programs?: unknown } | undefined;
    if (functionError !== undefined || condition !== 'Success') answers = handoffs.data.map(() => ({ functionError: functionError ?? condition, payload }));
    else if (!Array.isArray(parsed?.programs) || parsed.programs.length !== n) answers = handoffs.data.map(() => ({ payload }));
    else
      answers = (parsed.programs as unknown[]).map((answer) => {
        const text = JSON.stringify(answer);
        // A program the runner could not serve is that sample's failed runner (retry, then SE).
        const failed = typeof answer === 'object' && answer !== null && 'errorType' in answer;
        return failed ? { functionError: 'Unhandled', payload: text } : { payload: text };
      });
  }
  return handoffs.data.map((handoff, i) => ({
    message: handoff.message,
    answers: [...handoff.answers, { ...handoff.pending, ...(answers[i] as Omit<RecordedAnswer, 'request' | 'lowered'>) }],
  }));
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
