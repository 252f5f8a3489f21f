/**
 * A run's lifecycle rules, written once for every driver (the local pipeline, the cloud's
 * stages and its `remote resume`): what to do with an item whose record may be stored, what a
 * stage's error means, when a run is ready to aggregate, and what a new run's manifest records
 * of the driver's settings. Pure decisions, plus one small driver port ({@link RunRecords})
 * over which {@link resumeDecisions} reads a run's stored items; the drivers only act on what
 * these functions answer.
 *
 * @example
 * decideItem({ stored: 'SE', counted: true, on: 'resume' });          // { action: 'rerun', recount: false }
 * decideItem({ stored: 'OK', on: 'delivery' });                        // { action: 'skip', recount: true }
 * stageErrorDecision(new RunStopped('cost cap'), { redelivers: true }); // 'stop'
 */
import { InputError, RunStopped } from '../errors.ts';
import type { BlobStore, RunLedger, RunStatus } from '../ports.ts';
import type { Verdict } from '../types.ts';
import { parseItemDocument } from './engine.ts';
import { itemId, keys } from './keys.ts';
import type { Manifest } from './manifest.ts';
import type { WorkItem } from './plan.ts';

/** What a driver knows of one planned item when it decides (a run event). */
export interface ItemEvent {
  /** The verdict of the item's stored record; undefined when none is stored. */
  stored: Verdict | undefined;
  /** Whether the ledger counts the item; undefined when the driver does not know (counting is idempotent). */
  counted?: boolean;
  /**
   * Who asks: `resume` (a resume looks at every planned item: `polyeval resume`,
   * `polyeval remote resume`) or `delivery` (a queue hands over the item's message, which
   * carries `previousVerdict` when it is a re-run).
   */
  on: 'resume' | 'delivery';
  /** The verdict a re-run message says the stored record had (WorkItem.previousVerdict). */
  previousVerdict?: Verdict;
}

/**
 * What to do with the item: `run` it (nothing stored), `rerun` it (its stored record is an SE,
 * the harness's failure, not the model's), or `skip` it (recorded); `recount`: count the
 * stored record in the ledger first (the driver died between the store write and the count).
 */
export interface ItemDecision {
  action: 'run' | 'rerun' | 'skip';
  recount: boolean;
}

/** The verdict a resume runs again: the harness failed on the sample (a provider that gave up, a sandbox fault). */
export const RERUN_VERDICT: Verdict = 'SE';

/** The one rule for a planned item, whichever driver asks. */
export function decideItem(event: ItemEvent): ItemDecision {
  if (event.stored === undefined) return { action: 'run', recount: false };
  const recount = event.counted !== true;
  // A resume re-runs every SE; a delivered message only when it is that re-run (a redelivery of a
  // message whose item is recorded since costs no second model call or sandbox run).
  const rerun = event.on === 'resume' ? event.stored === RERUN_VERDICT : event.previousVerdict !== undefined && event.previousVerdict === event.stored;
  return { action: rerun ? 'rerun' : 'skip', recount };
}

/**
 * The driver port a resume reads a run through: its stored item records and the ledger's
 * counts (the local home's files and journal, S3 and DynamoDB in the cloud — both are
 * a BlobStore and a RunLedger, see {@link recordsOf}).
 */
export interface RunRecords {
  /** The verdict of each stored item record of the run, by item id (`<run>/<task>/<sample>`). */
  storedVerdicts(runId: string): Promise<Map<string, Verdict>>;
  /** Item ids the ledger counts. */
  countedItems(runId: string): Promise<Set<string>>;
  /** Counts a stored record (idempotent). */
  count(runId: string, itemId: string, verdict: Verdict): Promise<void>;
}

/** The driver port over a BlobStore and a RunLedger. */
export function recordsOf(store: BlobStore, ledger: RunLedger): RunRecords {
  return {
    storedVerdicts: async (runId) => {
      const out = new Map<string, Verdict>();
      for (const key of await store.list(keys.itemsPrefix(runId))) {
        const text = await store.getText(key);
        if (text === undefined) continue;
        const doc = parseItemDocument(text, store.locate(key));
        out.set(doc.item_id, doc.record.verdict);
      }
      return out;
    },
    countedItems: (runId) => ledger.recordedItems(runId),
    count: async (runId, id, verdict) => {
      await ledger.recordItem(runId, id, verdict);
    },
  };
}

/** A resume's decision for each planned item, in plan order. */
export interface ResumeDecision {
  item: WorkItem;
  decision: ItemDecision;
}

/**
 * Decides every planned item of a resumed run and counts the stored records the ledger lacks
 * (so their counts are right before any item runs again). The items to send are those whose
 * action is not `skip`; a `rerun` goes out with `previousVerdict`, so its new record moves
 * its count ({@link itemToSend}).
 */
export async function resumeDecisions(records: RunRecords, runId: string, items: readonly WorkItem[]): Promise<ResumeDecision[]> {
  const stored = await records.storedVerdicts(runId);
  const counted = await records.countedItems(runId);
  const out: ResumeDecision[] = [];
  for (const item of items) {
    const id = itemId(runId, item.taskId, item.sample);
    const verdict = stored.get(id);
    const decision = decideItem({ stored: verdict, counted: counted.has(id), on: 'resume' });
    if (decision.recount && verdict !== undefined) await records.count(runId, id, verdict);
    out.push({ item, decision });
  }
  return out;
}

/** The message of an item a resume sends, or undefined when it is skipped. */
export function itemToSend({ item, decision }: ResumeDecision): WorkItem | undefined {
  if (decision.action === 'skip') return undefined;
  return decision.action === 'rerun' ? { ...item, previousVerdict: RERUN_VERDICT } : item;
}

/**
 * What a stage's error means for its run: `stop` (on purpose: a cost cap, the early-stop
 * rule; status `stopped`), `fail` (bad data or settings no retry changes; status `failed`),
 * `retry` (anything else, where the driver redelivers: the cloud's queues, then their DLQ and
 * the watchdog). A driver that does not redeliver (a local run) fails the run instead.
 */
export type StageErrorDecision = 'stop' | 'fail' | 'retry';

export function stageErrorDecision(error: unknown, driver: { redelivers: boolean }): StageErrorDecision {
  if (error instanceof RunStopped) return 'stop';
  if (error instanceof InputError) return 'fail';
  return driver.redelivers ? 'retry' : 'fail';
}

/** The ledger status a stage error sets (none: the message is retried). */
export function statusOfStageError(decision: StageErrorDecision): RunStatus | undefined {
  return decision === 'stop' ? 'stopped' : decision === 'fail' ? 'failed' : undefined;
}

/** The ledger's view of a run a completion check reads. */
export interface RunProgress {
  status: RunStatus;
  items: number;
  recorded: number;
}

/**
 * Statuses no record moves on: the run ended, or a user cancelled it. Not
 * `completed_with_missing`: a missing item recorded late (a redelivery after the watchdog
 * closed the run) completes it.
 */
const ENDED: readonly RunStatus[] = ['completed', 'failed', 'stopped', 'cancelled'];

/**
 * Whether a run is ready to aggregate: planned items, every one counted, and not ended.
 * An item a resume re-runs is counted already (its SE), so while a resume is going its
 * driver asks {@link resumeComplete} instead.
 */
export function readyToAggregate(run: RunProgress | undefined): boolean {
  return run !== undefined && run.items > 0 && run.recorded >= run.items && !ENDED.includes(run.status);
}

/** Whether a resume is done: every item it sent is recorded again (`recordedAgain` of `sent`). */
export function resumeComplete(recordedAgain: number, sent: number): boolean {
  return recordedAgain >= sent;
}

/**
 * The driver's settings a new run's manifest records, as one value: the same fields local
 * and cloud, recorded the same way by {@link recordSettings}.
 */
export interface RunSettings {
  /** Provider options a resume reopens the model with (local: the CLI's flags). */
  providerOptions?: Manifest['provider_options'];
  /** Generated through the provider's batch API. */
  batch: boolean;
  /** The early-stop rule is off (the cloud's stages do not apply it). */
  earlyStopOff?: boolean;
  /** `--assume-price`: the price of a model the table lacks. */
  assumedPrice?: { input_per_mtok: number; output_per_mtok: number } | null;
  /** `--prices`: the user's table, per model id. */
  priceOverrides?: Record<string, { input_per_mtok: number; output_per_mtok: number }>;
  /**
   * The run's price resolved once (premium and batch price applied): `billed` false for an
   * unbilled model (nothing recorded), else `recorded` (null: a billed model without a price).
   */
  price: { billed: false } | { billed: true; recorded: NonNullable<Manifest['price']> | null };
}

/** Records `settings` in a new run's manifest: the one place a manifest takes a driver's settings. */
export function recordSettings(manifest: Manifest, settings: RunSettings): void {
  if (settings.providerOptions !== undefined) manifest.provider_options = settings.providerOptions;
  if (settings.earlyStopOff) manifest.early_stop = null;
  if (settings.batch) manifest.generation = 'batch';
  if (settings.assumedPrice)
    manifest.assumed_price = { input_per_mtok: settings.assumedPrice.input_per_mtok, output_per_mtok: settings.assumedPrice.output_per_mtok };
  if (settings.priceOverrides && Object.keys(settings.priceOverrides).length > 0)
    manifest.price_overrides = Object.fromEntries(
      Object.entries(settings.priceOverrides).map(([id, p]) => [id, { input_per_mtok: p.input_per_mtok, output_per_mtok: p.output_per_mtok }]),
    );
  // Resolved once: a resume and every worker bill at it, whatever the table or flags say then.
  if (settings.price.billed) manifest.price = settings.price.recorded;
}
