/**
 * The cost bookings of one generate invocation, made in the ledger together (issue 35: DynamoDB
 * writes per item). Each model call an uncapped run settles was its own `addCost` transaction
 * (its booking row and its shard's count row: 4 write units); the invocation's batch of up to 25
 * calls now goes to `addCosts`, one transaction for all of a run's bookings and ONE count row
 * (layers/aws/dynamo-booking-batch.ts: 2 units a call and 2 a transaction).
 *
 * The invocation's {@link SendGate} decides when: a booking waits until every handler of the
 * batch still running waits too (on a booking or on its execute message's send), then the
 * bookings go out — before any execute message does. That order is what keeps a booking from
 * being lost: an item's execute message leaves only after its booking is in the ledger, so an
 * item the judge records (and a redelivered generate message then skips, stages.ts
 * alreadyRecorded) was booked. And nothing is booked twice: a booking id is written once however
 * often its message is delivered (a redelivery after a failed send books nothing again).
 *
 * A failed `addCosts` fails every call waiting on it with a TransientError, so each item's message
 * comes back (engine.ts hands the error up instead of recording the item `SE`), its model called
 * and booked again; what the failed transaction had not applied is booked then, what it had
 * (an earlier transaction of a split batch) is not booked twice. A failure no retry can clear
 * (isPermanentAwsFailure: access denied, a missing table) fails them with the error itself, as a
 * single booking's failure does: the item is `SE` and its model is not called again and again.
 *
 * Only settlements with a booking id of an uncapped run (`addCost`) are held. A capped run's
 * reservations and settlements (`trySpend`, against its cap on the cost row) go to the ledger at
 * once, one call at a time, as before: the cap is never checked against a batch.
 */
import { TransientError } from '#core/errors.ts';
import type { CostBooking, RunLedger } from '#core/ports.ts';
import { isPermanentAwsFailure } from '#aws/index.ts';

interface Waiting {
  ledger: RunLedger;
  runId: string;
  booking: CostBooking;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class BookingBatch {
  #waiting: Waiting[] = [];
  /** Told when a booking starts waiting (the gate checks whether the invocation is blocked). */
  #onWait: () => void = () => this.flush();

  /** The bookings waiting for the flush. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Lets `onWait` decide when to flush (a SendGate); without one, each booking is flushed at once. */
  attach(onWait: () => void): void {
    this.#onWait = onWait;
  }

  /** The booking, made with the batch's (resolves once it is in the ledger). */
  book(ledger: RunLedger, runId: string, usd: number, bookingId: string): Promise<void> {
    const booked = new Promise<void>((resolve, reject) => this.#waiting.push({ ledger, runId, booking: { bookingId, usd }, resolve, reject }));
    this.#onWait();
    return booked;
  }

  /** A ledger whose `addCost` with a booking id waits for this batch; every other call goes straight to `ledger`. */
  over(ledger: RunLedger): RunLedger {
    const addCost: RunLedger['addCost'] = (runId, usd, bookingId) =>
      bookingId === undefined ? ledger.addCost(runId, usd) : this.book(ledger, runId, usd, bookingId);
    return new Proxy(ledger, {
      get(target, name) {
        if (name === 'addCost') return addCost;
        const value: unknown = Reflect.get(target, name, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  /** Sends the waiting bookings: one `addCosts` per run (and ledger), each waiting call answered with its run's outcome. */
  flush(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    const groups = new Map<RunLedger, Map<string, Waiting[]>>();
    for (const w of waiting) {
      const byRun = groups.get(w.ledger) ?? new Map<string, Waiting[]>();
      groups.set(w.ledger, byRun);
      byRun.set(w.runId, [...(byRun.get(w.runId) ?? []), w]);
    }
    for (const [ledger, byRun] of groups)
      for (const [runId, members] of byRun)
        void Promise.resolve()
          .then(() =>
            ledger.addCosts(
              runId,
              members.map((m) => m.booking),
            ),
          )
          .then(
            () => members.forEach((m) => m.resolve()),
            (error: unknown) => {
              // A failure no retry clears (access denied, no such table: a broken deployment) fails the calls as on
              // their own (the engine records the item SE): coming back, each would call the model again, up to the
              // generate queue's 50 receives, every call billed. Anything else (throttling, conflict, a server fault,
              // the network) is transient: the messages come back and are booked then.
              const failure = isPermanentAwsFailure(error)
                ? error
                : new TransientError(`the model call's cost booking failed (the item comes back): ${(error as Error).message}`, { cause: error });
              members.forEach((m) => m.reject(failure));
            },
          );
  }
}
