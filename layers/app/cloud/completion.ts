/**
 * The completion check after every record: once the ledger counts every planned item, the
 * run is handed to aggregate (lifecycle.ts readyToAggregate). Two stages may both see the last count (a duplicate delivery,
 * two items finishing together); aggregate is idempotent and skips a completed run.
 */
import type { RunLedger, WorkQueue } from '#core/ports.ts';
import { readyToAggregate } from '#core/run/index.ts';
import { versioned, type AggregateMessage } from './messages.ts';

/** Sends the aggregate message when recorded == items; returns whether it did. */
export async function notifyIfComplete(ledger: RunLedger, aggregateQueue: Pick<WorkQueue<AggregateMessage>, 'send'>, runId: string): Promise<boolean> {
  if (!readyToAggregate(await ledger.getRun(runId))) return false;
  await aggregateQueue.send([{ id: `${runId}/aggregate`, body: versioned({ runId }) }]);
  return true;
}
