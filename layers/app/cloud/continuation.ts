/**
 * The Lambda judge's message handler when it hands off to its runner (runner-handoff.ts): an
 * execute message starts an item, a runner's invocation record continues one (or, for a batch
 * invocation, several). Either way each item is scored by executeWork (stages.ts) from the
 * start, with the runner's answers so far; at the first unanswered runner job the judge invokes
 * its runner asynchronously and returns (`handed-off`), and the runner's record brings the item
 * back here. A record, a skip, a cancelled run and every failure take the same path as a
 * synchronous judge's, so the run's completion counting (layers/core/run/lifecycle.ts) is unchanged.
 *
 * Several samples per runner invocation: the items of one SQS batch that hand off wait for one
 * another ({@link HandoffBatch}); then the hand-offs of each task go to the runner together,
 * as many per invocation as its record and time budget allow (runner-handoff.ts combineHandoffs).
 */
import { parseGeneratedItem } from './messages.ts';
import { combineHandoffs, continuationsOf, HandedOff, isDestinationRecord, withHandoff, type HandoffEvent } from './runner-handoff.ts';
import type { RecordBatch } from './record-batch.ts';
import { executeWork, type Delivery, type ScoreAlone, type StageDeps, type StageOutcome } from './stages.ts';

export type { ScoreAlone };

export interface HandoffDeps {
  /** Invokes the runner asynchronously (`InvocationType: Event`) with this event. */
  invokeEvent: (payload: string) => Promise<void>;
}

/** A message body the judge's queues carry: an execute message, or (with a hand-off) a runner's invocation record. */
export function parseJudgeMessage(body: unknown): unknown {
  if (!isDestinationRecord(body)) parseGeneratedItem(body); // refuses a malformed execute message here, as before
  return body;
}

interface Waiting {
  key: string;
  event: HandoffEvent;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The hand-offs of one judge invocation's SQS batch. Every item of the batch is a participant;
 * one that hands off waits until every other has handed off or finished, then the waiting
 * hand-offs are grouped by task (the key) and sent, several per invocation. Each item's handler
 * resolves only once its invocation was accepted, and fails with it when it was not (the
 * message comes back, as a synchronous judge's would), so no item is lost between the two.
 */
export class HandoffBatch {
  private waiting: Waiting[] = [];

  constructor(
    private open: number,
    private readonly invokeEvent: (payload: string) => Promise<void>,
    /** The same participants' ledger counts (record-batch.ts): an item that hands off or finishes is done with it. */
    readonly records?: RecordBatch,
  ) {}

  /** A record that continues `n` items is `n` participants (it was counted as one). */
  grow(n: number): void {
    this.open += n;
    this.records?.grow(n);
  }

  /** The item's runner job goes with the others of its task: resolved when the invocation carrying it is accepted. */
  handOff(key: string, event: HandoffEvent): Promise<void> {
    const done = new Promise<void>((resolve, reject) => this.waiting.push({ key, event, resolve, reject }));
    this.leave();
    return done;
  }

  /** A participant that finished without handing off (recorded, skipped, failed), or handed off. */
  leave(): void {
    this.records?.leave();
    this.open -= 1;
    if (this.open > 0 || this.waiting.length === 0) return;
    const waiting = this.waiting;
    this.waiting = [];
    const byKey = new Map<string, Waiting[]>();
    for (const w of waiting) byKey.set(w.key, [...(byKey.get(w.key) ?? []), w]);
    for (const members of byKey.values()) {
      const events = combineHandoffs(members.map((m) => m.event));
      let at = 0;
      for (const event of events) {
        const size = 'handoffs' in event ? event.handoffs.length : 1;
        const mine = members.slice(at, at + size);
        at += size;
        this.invokeEvent(JSON.stringify(event)).then(
          () => mine.forEach((m) => m.resolve()),
          (error: unknown) => mine.forEach((m) => m.reject(error)),
        );
      }
    }
  }
}

/** One item: scored from the start with its answers so far; handed off at the first unanswered runner job. */
async function continueItem(
  deps: StageDeps,
  handoff: HandoffDeps,
  message: unknown,
  answers: Parameters<typeof withHandoff>[1],
  batch?: HandoffBatch,
  alone: ScoreAlone = (score) => score(),
  delivery: Delivery = {},
): Promise<StageOutcome> {
  let handedOff = false;
  try {
    const generated = parseGeneratedItem(message);
    // Only the scoring runs alone: the item then waits for its batch's ledger count (record-batch.ts) without holding the others' scoring back.
    return await withHandoff(message, answers, () =>
      executeWork({ ...deps, alone, ...(batch?.records ? { records: batch.records } : {}) }, generated, delivery),
    );
  } catch (error) {
    if (!(error instanceof HandedOff)) throw error;
    // A failed invoke throws: the message comes back to be tried again, as a synchronous judge's.
    handedOff = true;
    if (batch) {
      const { item } = parseGeneratedItem(message);
      await batch.handOff(`${item.runId}\n${item.taskId}`, error.event);
    } else await handoff.invokeEvent(JSON.stringify(error.event));
    return { status: 'handed-off' };
  } finally {
    if (!handedOff) batch?.leave();
  }
}

/**
 * One judge message: an execute message, or a runner's record of one item (an older single
 * hand-off) or of several (a batch): each item continues on its own. With `batch`, the
 * message's items hand off together with the rest of the judge's SQS batch.
 */
export async function judgeWork(
  deps: StageDeps,
  handoff: HandoffDeps,
  body: unknown,
  batch?: HandoffBatch,
  alone?: ScoreAlone,
  delivery: Delivery = {},
): Promise<StageOutcome> {
  let items: { message: unknown; answers: Parameters<typeof withHandoff>[1] }[];
  try {
    items = isDestinationRecord(body) ? continuationsOf(body) : [{ message: body, answers: [] }];
  } catch (error) {
    batch?.leave(); // a record we cannot continue must not hold the batch's hand-offs back
    throw error;
  }
  // An execute message looks its item up as `delivery` says (stages.ts Delivery); a runner's record
  // continues items, which look theirs up as the pass starts, as before.
  if (items.length === 1)
    return continueItem(deps, handoff, items[0]?.message, items[0]?.answers ?? [], batch, alone, isDestinationRecord(body) ? {} : delivery);
  batch?.grow(items.length - 1);
  // Every item runs to its end (or hand-off) before a failure fails the message: its redelivery re-scores only what is not recorded.
  const outcomes = await Promise.allSettled(items.map((c) => continueItem(deps, handoff, c.message, c.answers, batch, alone)));
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed) throw failed.reason;
  const statuses = new Set(outcomes.map((o) => (o as PromiseFulfilledResult<StageOutcome>).value.status));
  return statuses.size === 1 ? (outcomes[0] as PromiseFulfilledResult<StageOutcome>).value : { status: 'handed-off' };
}
