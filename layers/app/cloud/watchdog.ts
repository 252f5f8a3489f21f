/**
 * The run watchdog (a scheduled function): a run that stopped moving while the pipeline is
 * idle will never finish by itself — some of its messages were dead-lettered or lost. The
 * watchdog hands such a run to aggregate with `allowMissing`, which aggregates what is
 * recorded, lists the items that are not, and sets `completed_with_missing`
 * (`polyeval remote redrive <run>` can still bring the dead-lettered ones back).
 *
 * "Idle" is the sum of every stage and execute queue's depth (visible, in flight, delayed):
 * while anything is queued, a quiet run may only be waiting behind another run's work.
 */
import type { RunLedger, RunSummary, WorkQueue } from '#core/ports.ts';
import type { AggregateMessage } from './messages.ts';

export interface WatchdogDeps {
  ledger: RunLedger;
  aggregateQueue: Pick<WorkQueue<AggregateMessage>, 'send'>;
  /** Messages still in the pipeline's stage and execute queues (not the DLQs). */
  pipelineDepth: () => Promise<number>;
  clock: () => Date;
  /** A run without a ledger update for this long is stalled (default 30 minutes). */
  stallMs?: number;
}

export type WatchdogAction =
  | { runId: string; action: 'aggregate'; recorded: number; items: number }
  | { runId: string; action: 'failed'; reason: string };

export interface WatchdogReport {
  /** Active runs without progress for the stall window. */
  stalled: string[];
  /** Messages still queued: nothing is closed while the pipeline is busy. */
  queued: number;
  actions: WatchdogAction[];
}

export const DEFAULT_STALL_MS = 30 * 60_000;

export async function watchRuns(deps: WatchdogDeps): Promise<WatchdogReport> {
  const now = deps.clock().getTime();
  const stallMs = deps.stallMs ?? DEFAULT_STALL_MS;
  const stalled = (await deps.ledger.listRuns()).filter(
    (run) => (run.status === 'planned' || run.status === 'running' || run.status === 'aggregating') && now - Date.parse(run.updatedAt) >= stallMs,
  );
  if (stalled.length === 0) return { stalled: [], queued: 0, actions: [] };
  const queued = await deps.pipelineDepth();
  if (queued > 0) return { stalled: stalled.map((r) => r.runId), queued, actions: [] };
  const actions: WatchdogAction[] = [];
  for (const run of stalled) actions.push(await close(deps, run));
  return { stalled: stalled.map((r) => r.runId), queued, actions };
}

async function close(deps: WatchdogDeps, run: RunSummary): Promise<WatchdogAction> {
  if (run.items === 0) {
    // Never planned: the plan message itself was dead-lettered (the dataset could not be read in time).
    const reason = 'never planned: its plan message was dead-lettered (see the plan DLQ); start it again';
    await deps.ledger.setStatus(run.runId, 'failed', reason);
    return { runId: run.runId, action: 'failed', reason };
  }
  await deps.aggregateQueue.send([{ id: `${run.runId}/watchdog`, body: { runId: run.runId, allowMissing: true } }]);
  return { runId: run.runId, action: 'aggregate', recorded: run.recorded, items: run.items };
}
