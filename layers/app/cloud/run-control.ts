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

/** The run a stage message belongs to, whatever the stage (plan, work item, generated item or its pointer, aggregate). */
export function runIdOfMessage(body: string): string | undefined {
  const parsed = jsonObjectOf(body);
  if (parsed === undefined) return undefined;
  const message = parsed as { runId?: unknown; item?: { runId?: unknown } };
  if (typeof message.runId === 'string') return message.runId;
  if (typeof message.item?.runId === 'string') return message.item.runId;
  return undefined;
}

/** The item a work message carries (`<run>/<task>/<sample>`, as itemId), or undefined for plan and aggregate messages. */
export function itemIdOfMessage(body: string): string | undefined {
  const parsed = jsonObjectOf(body);
  if (parsed === undefined) return undefined;
  const outer = parsed as { item?: unknown };
  const item = (typeof outer.item === 'object' && outer.item !== null ? outer.item : parsed) as { runId?: unknown; taskId?: unknown; sample?: unknown };
  if (typeof item.runId !== 'string' || typeof item.taskId !== 'string' || typeof item.sample !== 'number') return undefined;
  return itemId(item.runId, item.taskId, item.sample);
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
