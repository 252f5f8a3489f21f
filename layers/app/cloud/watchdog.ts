/**
 * The run watchdog (a scheduled function): a run that stopped moving while the pipeline is
 * idle will never finish by itself — some of its messages were dead-lettered or lost. The
 * watchdog hands such a run to aggregate with `allowMissing`, which aggregates what is
 * recorded, lists the items that are not, and sets `completed_with_missing`. It reads the
 * DLQs first (without taking anything out) so the summary tells the items still in a DLQ
 * (`dead_lettered`: `polyeval remote redrive <run>` brings them back) from the `lost` ones,
 * which no queue holds any more.
 *
 * "Idle" is the sum of every stage and execute queue's depth (visible, in flight, delayed):
 * while anything is queued, a quiet run may only be waiting behind another run's work. The
 * runners' answers queues are among them; an item handed to a runner asynchronously is in no
 * queue of ours while Lambda holds its event (throttled, it waits up to the event's maximum age,
 * 6 h), so with `runnerEventsWaiting` stalled runs also wait while a runner may hold an event
 * (runner-events.ts: the signal and why it is sound), and the report says why.
 *
 * Every tick, before looking at runs, it also keeps the work queues' alarms (queue-alarms.ts):
 * dead letters and old messages, told to the alarm topic once per transition.
 */
import type { RunLedger, RunSummary, WorkQueue } from '#core/ports.ts';
import { versioned, type AggregateMessage } from './messages.ts';
import { evaluateQueues, sameState, type QueueAlarmStore, type QueueAlert, type QueueReading } from './queue-alarms.ts';
import type { DeadLetter } from './run-control.ts';

export interface WatchdogDeps {
  ledger: RunLedger;
  aggregateQueue: Pick<WorkQueue<AggregateMessage>, 'send'>;
  /** Messages still in the pipeline's stage and execute queues (not the DLQs). */
  pipelineDepth: () => Promise<number>;
  /**
   * The run and items of every message in the DLQs, left in place (none: dead-lettered and lost
   * items are not told apart). Each body is reduced to its ids as it is read (run-control.ts
   * `deadLetterOf`): a DLQ can hold thousands of messages of up to 1 MiB (a runner's record), more
   * than the watchdog's memory.
   */
  deadLetters?: () => Promise<DeadLetter[]>;
  clock: () => Date;
  /**
   * Why a runner's asynchronous events may still wait in Lambda's queue or run (runner-events.ts),
   * or undefined when none can. Asked only when runs stalled and every watched queue is empty;
   * absent: no runner is invoked asynchronously.
   */
  runnerEventsWaiting?: (now: Date) => Promise<string | undefined>;
  /**
   * With `runnerEventsWaiting`: waits until CloudWatch has published what Lambda counted before the
   * queues were read (a hand-off in the last minute or two may not be visible yet); the runners are
   * asked again after it, and the run is closed only if they still hold nothing. Absent: no wait.
   */
  settle?: () => Promise<void>;
  /** A run without a ledger update for this long is stalled (default 30 minutes). */
  stallMs?: number;
  /** The work queues' alarms (all three or none): each queue and its DLQ read this tick, the state kept between ticks, and where transitions are told. */
  queueAlarms?: {
    read: (now: Date) => Promise<QueueReading[]>;
    store: QueueAlarmStore;
    notify: (alerts: QueueAlert[]) => Promise<void>;
  };
}

export type WatchdogAction =
  { runId: string; action: 'aggregate'; recorded: number; items: number; deadLettered?: number } | { runId: string; action: 'failed'; reason: string };

export interface WatchdogReport {
  /** Active runs without progress for the stall window. */
  stalled: string[];
  /** Messages still queued: nothing is closed while the pipeline is busy. */
  queued: number;
  /** Why stalled runs were left open though every queue was empty: a runner's events may still wait in Lambda's asynchronous queue. */
  waiting?: string;
  actions: WatchdogAction[];
  /** Queue alarm transitions told this tick (none: nothing changed, or no queue alarms kept). */
  alerts?: QueueAlert[];
}

export const DEFAULT_STALL_MS = 30 * 60_000;
/** Most dead-lettered item ids one aggregate message carries (SQS takes 256 KiB). */
const MAX_LISTED = 2_000;

export async function watchRuns(deps: WatchdogDeps): Promise<WatchdogReport> {
  // A queue alarm that cannot be kept (SQS, DynamoDB or EventBridge failing) must not keep stalled
  // runs open: the runs are looked at anyway, then the failure is thrown (the errors alarm, a retry next tick).
  let alerts: QueueAlert[] = [];
  let alarmFailure: { error: unknown } | undefined;
  try {
    if (deps.queueAlarms) alerts = await keepQueueAlarms(deps.queueAlarms, deps.clock());
  } catch (error) {
    alarmFailure = { error };
  }
  const report = await closeStalledRuns(deps);
  if (alarmFailure) throw alarmFailure.error;
  return alerts.length > 0 ? { ...report, alerts } : report;
}

/** Reads the queues, tells the transitions, then remembers the new state: a failed notification is retried next tick. */
async function keepQueueAlarms(q: NonNullable<WatchdogDeps['queueAlarms']>, now: Date): Promise<QueueAlert[]> {
  const [readings, previous] = await Promise.all([q.read(now), q.store.load()]);
  const { state, alerts } = evaluateQueues(readings, previous, now);
  if (alerts.length > 0) await q.notify(alerts);
  if (!sameState(state, previous)) await q.store.save(state);
  return alerts;
}

async function closeStalledRuns(deps: WatchdogDeps): Promise<WatchdogReport> {
  const now = deps.clock().getTime();
  const stallMs = deps.stallMs ?? DEFAULT_STALL_MS;
  const stalled = (await deps.ledger.listRuns()).filter(
    (run) => (run.status === 'planned' || run.status === 'running' || run.status === 'aggregating') && now - Date.parse(run.updatedAt) >= stallMs,
  );
  if (stalled.length === 0) return { stalled: [], queued: 0, actions: [] };
  const queued = await deps.pipelineDepth();
  if (queued > 0) return { stalled: stalled.map((r) => r.runId), queued, actions: [] };
  // Read after the queues: an event handed off before they were read was received by Lambda before that too.
  let waiting = deps.runnerEventsWaiting ? await deps.runnerEventsWaiting(deps.clock()) : undefined;
  // Every hand-off of a stalled run's item came before the queues were read empty, but its data point may not be published yet:
  // asked again once it must be (settle), so a tick right after a hand-off does not close the run.
  if (waiting === undefined && deps.runnerEventsWaiting && deps.settle) {
    await deps.settle();
    waiting = await deps.runnerEventsWaiting(deps.clock());
  }
  if (waiting !== undefined) return { stalled: stalled.map((r) => r.runId), queued, actions: [], waiting };
  const letters = deps.deadLetters ? await deps.deadLetters() : undefined;
  const actions: WatchdogAction[] = [];
  for (const run of stalled) {
    const dead = letters?.filter((letter) => letter.runId === run.runId).flatMap((letter) => letter.itemIds);
    actions.push(await close(deps, run, dead === undefined ? undefined : [...new Set(dead)]));
  }
  return { stalled: stalled.map((r) => r.runId), queued, actions };
}

async function close(deps: WatchdogDeps, run: RunSummary, deadLettered: string[] | undefined): Promise<WatchdogAction> {
  if (run.items === 0) {
    // Never planned: the plan message itself was dead-lettered (the dataset could not be read in time).
    const reason = 'never planned: its plan message was dead-lettered (see the plan DLQ); start it again';
    await deps.ledger.setStatus(run.runId, 'failed', reason);
    return { runId: run.runId, action: 'failed', reason };
  }
  // Item ids are ~100 bytes: a message holds the ids of ~2,000 dead-lettered items; more are not told apart.
  const listed = deadLettered !== undefined && deadLettered.length <= MAX_LISTED ? deadLettered : undefined;
  await deps.aggregateQueue.send([
    { id: `${run.runId}/watchdog`, body: versioned({ runId: run.runId, allowMissing: true, ...(listed ? { deadLettered: listed } : {}) }) },
  ]);
  return { runId: run.runId, action: 'aggregate', recorded: run.recorded, items: run.items, ...(deadLettered ? { deadLettered: deadLettered.length } : {}) };
}
