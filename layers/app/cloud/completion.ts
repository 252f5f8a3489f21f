/**
 * The completion check after every record: once the ledger counts every planned item, the
 * run is handed to aggregate. Two stages may both see the last count (a duplicate delivery,
 * two items finishing together); aggregate is idempotent and skips a completed run.
 */
import type { RunLedger, WorkQueue } from '#core/ports.ts';
import { versioned, type AggregateMessage } from './messages.ts';

/** Sends the aggregate message when recorded == items; returns whether it did. */
export async function notifyIfComplete(ledger: RunLedger, aggregateQueue: Pick<WorkQueue<AggregateMessage>, 'send'>, runId: string): Promise<boolean> {
  const run = await ledger.getRun(runId);
  if (run === undefined || run.items === 0 || run.recorded < run.items) return false;
  if (run.status === 'completed' || run.status === 'failed' || run.status === 'stopped' || run.status === 'cancelled') return false;
  await aggregateQueue.send([{ id: `${runId}/aggregate`, body: versioned({ runId }) }]);
  return true;
}
