/**
 * What a user does to a run in flight: `cancel` (status `cancelled`; every stage then takes the
 * run's queued messages off without doing them) and `redrive` (the run's dead-lettered
 * messages back to the queues they came from, the run back to `running`, so its items are
 * tried again and the run is aggregated again once they are recorded).
 */
import { PolyevalError } from '#core/errors.ts';
import type { RunLedger, RunStatus, RunSummary } from '#core/ports.ts';
import { itemId } from '#core/run/index.ts';
import { RunNotFoundError, checkRunId } from './queries.ts';

/** A run that has ended cannot be cancelled (409). */
export class RunNotActiveError extends PolyevalError {
  override name = 'RunNotActiveError';
  constructor(
    readonly runId: string,
    readonly status: RunStatus,
    message = `run "${runId}" is ${status}: only a planned or running run can be cancelled`,
  ) {
    super(message);
  }
}

const ACTIVE: readonly RunStatus[] = ['planned', 'running', 'aggregating'];

export async function cancelRun(ledger: RunLedger, runId: string): Promise<RunSummary> {
  checkRunId(runId);
  const run = await ledger.getRun(runId);
  if (run === undefined) throw new RunNotFoundError(runId);
  if (run.status === 'cancelled') return run;
  if (!ACTIVE.includes(run.status)) throw new RunNotActiveError(runId, run.status);
  await ledger.setStatus(runId, 'cancelled', 'cancelled by the user: queued work is skipped');
  return (await ledger.getRun(runId)) ?? run;
}

/**
 * The stage messages a body carries: itself, or — for a runner's invocation record on an answers
 * queue (runner-handoff.ts: Lambda's destination record, `requestPayload` the hand-off event as
 * sent) — the execute message of each item the invocation continues (`handoff.message`, or each
 * of a batch's `handoffs`).
 */
function stageMessagesOf(body: string): object[] {
  const parsed = jsonObjectOf(body);
  if (parsed === undefined) return [];
  const record = parsed as { requestContext?: unknown; requestPayload?: { handoff?: { message?: unknown }; handoffs?: unknown } };
  if (typeof record.requestContext !== 'object' || typeof record.requestPayload !== 'object' || record.requestPayload === null) return [parsed];
  const handoffs = Array.isArray(record.requestPayload.handoffs)
    ? (record.requestPayload.handoffs as { message?: unknown }[])
    : [record.requestPayload.handoff];
  return handoffs.map((h) => (typeof h === 'object' && h !== null ? h.message : undefined)).filter((m): m is object => typeof m === 'object' && m !== null);
}

function runIdOf(message: object): string | undefined {
  const m = message as { runId?: unknown; item?: { runId?: unknown } };
  if (typeof m.runId === 'string') return m.runId;
  if (typeof m.item?.runId === 'string') return m.item.runId;
  return undefined;
}

function itemIdOf(message: object): string | undefined {
  const outer = message as { item?: unknown };
  const item = (typeof outer.item === 'object' && outer.item !== null ? outer.item : message) as { runId?: unknown; taskId?: unknown; sample?: unknown };
  if (typeof item.runId !== 'string' || typeof item.taskId !== 'string' || typeof item.sample !== 'number') return undefined;
  return itemId(item.runId, item.taskId, item.sample);
}

/** The run a stage message belongs to, whatever the stage (plan, work item, generated item or its pointer, aggregate, a runner's invocation record). */
export function runIdOfMessage(body: string): string | undefined {
  for (const message of stageMessagesOf(body)) {
    const runId = runIdOf(message);
    if (runId !== undefined) return runId;
  }
  return undefined;
}

/** Every item a message carries: one for a work message, each item a runner's invocation record continues, none for plan and aggregate messages. */
export function itemIdsOfMessage(body: string): string[] {
  return stageMessagesOf(body)
    .map(itemIdOf)
    .filter((id): id is string => id !== undefined);
}

/** What the watchdog keeps of a dead-lettered message: its run and its items, a few hundred bytes, not a body of up to 1 MiB. */
export interface DeadLetter {
  runId: string | undefined;
  itemIds: string[];
}

/** The run and items of a dead-lettered message body (read as it comes off the queue, so the body itself is not kept). */
export function deadLetterOf(body: string): DeadLetter {
  return { runId: runIdOfMessage(body), itemIds: itemIdsOfMessage(body) };
}

/** A dead-letter queue and the queue its messages came from. */
export interface RedrivePair {
  name: string;
  dlqUrl: string;
  queueUrl: string;
}

/** Moves the selected messages of one DLQ to its source queue (layers/aws/sqs-dead-letters.ts on AWS). */
export type MoveMessages = (pair: RedrivePair, select: (body: string) => boolean) => Promise<{ moved: number }>;

export interface RedriveDeps {
  ledger: RunLedger;
  pairs: readonly RedrivePair[];
  move: MoveMessages;
}

export interface RedriveResult {
  run_id: string;
  moved: number;
  queues: Record<string, number>;
}

export async function redriveRun(deps: RedriveDeps, runId: string): Promise<RedriveResult> {
  checkRunId(runId);
  const run = await deps.ledger.getRun(runId);
  if (run === undefined) throw new RunNotFoundError(runId);
  if (run.status === 'cancelled') throw new RunNotActiveError(runId, run.status);
  const queues: Record<string, number> = {};
  let moved = 0;
  for (const pair of deps.pairs) {
    const out = await deps.move(pair, (body) => runIdOfMessage(body) === runId);
    if (out.moved > 0) queues[pair.name] = out.moved;
    moved += out.moved;
  }
  if (moved > 0 && run.status !== 'running') await deps.ledger.setStatus(runId, 'running', `redriven: ${moved} dead-lettered messages back in their queues`);
  return { run_id: runId, moved, queues };
}

/** A message body's JSON object, or undefined when it is not JSON or not an object (a foreign or damaged message). */
function jsonObjectOf(body: string): object | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}
