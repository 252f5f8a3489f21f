/**
 * The records of one judge invocation, counted in the ledger together (issue 35: DynamoDB writes
 * per item). Each item of the invocation's SQS batch is a participant, as in continuation.ts's
 * HandoffBatch: an item that reaches its ledger count waits; once no participant is still working
 * (each is waiting here, has handed off to its runner, or has finished), the waiting counts go to
 * the ledger in one `recordItems` per run — one DynamoDB transaction per 99 items
 * (layers/aws/dynamo-record-batch.ts) instead of one per item — and each item carries on with its
 * own answer (counted now, or before), exactly as after its own `recordItem`.
 *
 * Nothing recorded is lost: the item's document is stored before its count is asked for
 * (engine.ts recordItem), and a failed batch fails every item waiting in it, whose messages come
 * back; a redelivery finds the stored document and counts it (stages.ts alreadyRecorded), and the
 * conditional item rows keep an item that was counted from counting twice.
 */
import type { ItemCount, RunLedger } from '#core/ports.ts';
import type { Verdict } from '#core/types.ts';

interface Waiting {
  ledger: RunLedger;
  runId: string;
  item: ItemCount;
  resolve: (counted: boolean) => void;
  reject: (error: unknown) => void;
}

export class RecordBatch {
  #open: number;
  #waiting: Waiting[] = [];

  /** `open`: the participants (the invocation's messages). */
  constructor(open: number) {
    this.#open = open;
  }

  /** A message that continues `n` items is `n` participants (it was counted as one). */
  grow(n: number): void {
    this.#open += n;
  }

  /** A participant that is done with the ledger: finished, failed, or handed off to its runner. */
  leave(): void {
    this.#open -= 1;
    this.#flushIfReady();
  }

  /** The item's count, made with the batch's: true when counted now, false when counted before. */
  record(ledger: RunLedger, runId: string, itemId: string, verdict: Verdict): Promise<boolean> {
    const answer = new Promise<boolean>((resolve, reject) => this.#waiting.push({ ledger, runId, item: { itemId, verdict }, resolve, reject }));
    this.#open -= 1;
    this.#flushIfReady();
    return answer;
  }

  /** A ledger whose recordItem waits for this batch; every other call goes straight to `ledger`. */
  over(ledger: RunLedger): RunLedger {
    return new BatchedLedger(ledger, this);
  }

  #flushIfReady(): void {
    if (this.#open > 0 || this.#waiting.length === 0) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    // Each waiting participant works again once answered (and leaves when it finishes).
    this.#open += waiting.length;
    const byRun = new Map<string, Waiting[]>();
    for (const w of waiting) byRun.set(w.runId, [...(byRun.get(w.runId) ?? []), w]);
    for (const [runId, members] of byRun) {
      (members[0] as Waiting).ledger
        .recordItems(
          runId,
          members.map((m) => m.item),
        )
        .then(
          (counted) => members.forEach((m, i) => m.resolve(counted[i] ?? false)),
          (error: unknown) => members.forEach((m) => m.reject(error)),
        );
    }
  }
}

/** The run ledger with its recordItem sent through a {@link RecordBatch}. */
class BatchedLedger implements RunLedger {
  constructor(
    private readonly inner: RunLedger,
    private readonly batch: RecordBatch,
  ) {}

  recordItem(runId: string, itemId: string, verdict: Verdict): Promise<boolean> {
    return this.batch.record(this.inner, runId, itemId, verdict);
  }
  recordItems: RunLedger['recordItems'] = (runId, items) => this.inner.recordItems(runId, items);
  createRun: RunLedger['createRun'] = (summary) => this.inner.createRun(summary);
  getRun: RunLedger['getRun'] = (runId) => this.inner.getRun(runId);
  runStatus: RunLedger['runStatus'] = (runId) => this.inner.runStatus(runId);
  listRuns: RunLedger['listRuns'] = () => this.inner.listRuns();
  reviseItem: RunLedger['reviseItem'] = (runId, itemId, from, to) => this.inner.reviseItem(runId, itemId, from, to);
  recordedItems: RunLedger['recordedItems'] = (runId) => this.inner.recordedItems(runId);
  addCost: RunLedger['addCost'] = (runId, usd, bookingId) => this.inner.addCost(runId, usd, bookingId);
  addCosts: RunLedger['addCosts'] = (runId, bookings) => this.inner.addCosts(runId, bookings);
  trySpend: RunLedger['trySpend'] = (runId, usd, capUsd, bookingId) => this.inner.trySpend(runId, usd, capUsd, bookingId);
  setStatus: RunLedger['setStatus'] = (runId, status, reason) => this.inner.setStatus(runId, status, reason);
  claimStatus: RunLedger['claimStatus'] = (runId, from, status, reason) => this.inner.claimStatus(runId, from, status, reason);
  // Optional: absent when the inner ledger has none, so a stage falls back to the stored record (stages.ts generateWork).
  get countedVerdict(): RunLedger['countedVerdict'] {
    return this.inner.countedVerdict?.bind(this.inner);
  }
}
