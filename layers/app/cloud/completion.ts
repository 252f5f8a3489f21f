/**
 * The completion check after a record: once the ledger counts every planned item, the run is
 * handed to aggregate (lifecycle.ts readyToAggregate). Two stages may both see the last count (a duplicate delivery,
 * two items finishing together); aggregate is idempotent and skips a completed run.
 *
 * When it is made (issue 35, requests per item): only by the stage whose count completes the
 * item's records part, not after every record. The run's ledger row and its count shards are
 * one strongly consistent BatchGetItem of 18 rows (dynamo-run-ledger.ts getRun), so checking
 * after every record billed 18 read units per item; once per part it is 18 per part (1,000
 * items). No completion is missed: every item is counted in the ledger before its part
 * (stages.ts afterRecord), the part counter answers true to at least one of the writes that
 * fill a part and again to a redelivered slot of a complete part (dynamo-part-counter.ts), and
 * each check reads after its own part's count. So the check that follows the run's last part
 * count — and with parts completing together, at least one of theirs — reads every item's
 * ledger count. Items without a part (sent before parts existed) are checked one by one, as before.
 */
import type { RunLedger, WorkQueue } from '#core/ports.ts';
import { readyToAggregate } from '#core/run/index.ts';
import type { PartCounter } from '#aws/index.ts';
import { versioned, type AggregateMessage, type CloudWorkItem } from './messages.ts';
import { countInPart } from './record-parts.ts';

type AggregateSender = Pick<WorkQueue<AggregateMessage>, 'send'>;

/** Sends the aggregate message when recorded == items; returns whether it did. */
export async function notifyIfComplete(ledger: RunLedger, aggregateQueue: AggregateSender, runId: string): Promise<boolean> {
  if (!readyToAggregate(await ledger.getRun(runId))) return false;
  await aggregateQueue.send([{ id: `${runId}/aggregate`, body: versioned({ runId }) }]);
  return true;
}

/**
 * After an item is recorded for a run the watchdog already closed (`completed_with_missing`: a
 * runner's event or a message that came back after the close), and the record did not complete
 * the run: asks aggregate to aggregate the run again over what is recorded (`late`), so the
 * summary, its missing list and the ledger's reason count the item. Aggregate skips it when
 * nothing was recorded since the last aggregation (aggregate.ts), so a burst of late records
 * costs one aggregation, not one each.
 */
export async function reaggregateLate(aggregateQueue: AggregateSender, runId: string): Promise<void> {
  await aggregateQueue.send([{ id: `${runId}/late`, body: versioned({ runId, allowMissing: true, late: true }) }]);
}

/**
 * After an item's record is counted in the ledger: counts it in its records part and, when
 * that completes the part (or the item has no part), checks the run's completion. Returns
 * whether the run's aggregate message was sent.
 */
export async function countAndCheckCompletion(
  deps: { parts: PartCounter; ledger: RunLedger; aggregateQueue: AggregateSender },
  item: CloudWorkItem,
): Promise<boolean> {
  if (item.part !== undefined && !(await countInPart(deps.parts, deps.aggregateQueue, item))) return false;
  return notifyIfComplete(deps.ledger, deps.aggregateQueue, item.runId);
}
