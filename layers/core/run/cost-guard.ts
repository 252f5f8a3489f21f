/**
 * The cost guard: the one owner of a run's spend, for local runs and cloud workers alike.
 * Before a call it reserves the call's projected cost in the ledger through
 * `RunLedger.trySpend` (atomic, so concurrent calls — in one process or in a hundred
 * Lambdas — never reserve past the cap together); after the call it settles the
 * reservation to the call's actual cost. The ledger's spend is therefore what was spent
 * plus what calls in flight may still spend. Projections learn from real usage: each is
 * scaled by the largest actual/projected ratio seen. Until a capped run's first billed call
 * has settled, its on-demand calls go one at a time: several calls reserved at an uncalibrated
 * projection would settle together past the cap.
 *
 * A process killed mid-call leaves its reservation in the ledger: the spend errs high,
 * never low.
 *
 * A call with an id (the cloud's: its item, so a redelivered message names the same call) is
 * booked at most once: its reservation as `<id>/reserve`, its settlement as `<id>/settle`
 * (`/settle-<n>` for a further billed charge), each a booking the ledger applies once. An
 * uncapped run reserves nothing and books the actual cost with `addCost` (the cloud ledger
 * spreads those over the run's shards); a capped run books everything on its cap counter.
 */
import { RunStopped } from '../errors.ts';
import type { RunLedger } from '../ports.ts';
import type { TokenUsage } from '../types.ts';

/** What a call reserved; settle it exactly once. */
export interface Reservation {
  readonly usd: number;
  readonly estimate: number;
  settled: boolean;
  /** The call's id: its bookings are made once each (see the header). */
  readonly callId?: string;
  /** Charges booked against this reservation so far. */
  charges?: number;
  /** Made before the run's first billed call settled: it alone was in flight. */
  readonly pilot?: boolean;
}

export interface CostGuardOptions {
  ledger: RunLedger;
  runId: string;
  /** `--max-cost`; null = no cap (spend is still counted). */
  capUsd: number | null;
  /** USD of one call's usage; null when the model has no price (refused at plan time when a cap is set). */
  costOf?: (usage: TokenUsage) => number | null;
}

/**
 * @example
 * const guard = new CostGuard({ ledger, runId, capUsd: 5, costOf });
 * const r = await guard.reserve(0.002);           // throws RunStopped when the call could overspend
 * try { const g = await provider.generate(req); await guard.settle(r, g.usage); }
 * finally { await guard.release(r); }
 */
export class CostGuard {
  readonly #opts: CostGuardOptions;
  /** Largest actual/estimated ratio seen (≥ 1): projections learn from real usage. */
  #calibration = 1;
  /** Whether a billed call has settled (the calibration has seen real usage). */
  #calibrated = false;
  /** The one call in flight before calibration: later reservations wait for it. */
  #pilot: Promise<void> | undefined;
  #endPilot: (() => void) | undefined;

  constructor(opts: CostGuardOptions) {
    this.#opts = opts;
  }

  get capUsd(): number | null {
    return this.#opts.capUsd;
  }

  /** USD of a usage, 0 when unpriced. */
  costOf(usage: TokenUsage): number {
    return this.#opts.costOf?.(usage) ?? 0;
  }

  /**
   * Reserves the projected cost of one call (`estimate` scaled by the calibration). With
   * `oneAtATimeUntilCalibrated` (calls that settle within seconds: on-demand generation, not a
   * batch job that settles hours later), it waits while an uncalibrated call is in flight.
   * @throws RunStopped when the reservation would take the run past its cap.
   */
  async reserve(estimate: number, callId?: string, opts: { oneAtATimeUntilCalibrated?: boolean } = {}): Promise<Reservation> {
    const { ledger, runId, capUsd } = this.#opts;
    const id = callId === undefined ? {} : { callId };
    if (capUsd === null) return { usd: 0, estimate, settled: false, ...id };
    const gated = opts.oneAtATimeUntilCalibrated === true;
    while (gated && !this.#calibrated && this.#pilot) await this.#pilot;
    const pilot = gated && !this.#calibrated;
    if (pilot) this.#pilot = new Promise((resolve) => (this.#endPilot = resolve));
    try {
      const usd = estimate * this.#calibration;
      if (usd > 0 && !(await ledger.trySpend(runId, usd, capUsd, booking(callId, 'reserve')))) {
        const spent = (await ledger.getRun(runId))?.costUsd ?? 0;
        throw new RunStopped(`cost cap: $${spent.toFixed(6)} spent or reserved, the next call may cost up to $${usd.toFixed(6)}, cap $${capUsd}`);
      }
      return { usd, estimate, settled: false, ...id, ...(pilot ? { pilot } : {}) };
    } catch (error) {
      if (pilot) this.#landPilot();
      throw error;
    }
  }

  /**
   * Books the actual cost of a billed call against its reservation; returns the USD booked.
   * `via`: the ledger an uncapped run's settlement is booked through (a cloud generate
   * invocation's batch of bookings, layers/app/cloud/booking-batch.ts); the guard's own by
   * default. A capped run's is always the guard's: checked against the cap one call at a time.
   */
  async settle(reservation: Reservation, usage: TokenUsage | null, via?: Pick<RunLedger, 'addCost'>): Promise<number> {
    const actual = usage ? this.costOf(usage) : 0;
    const charge = (reservation.charges ?? 0) + 1;
    reservation.charges = charge;
    const id = booking(reservation.callId, charge === 1 ? 'settle' : `settle-${charge}`);
    if (reservation.settled) {
      if (actual !== 0) await this.#book(actual, id, via);
      return actual;
    }
    reservation.settled = true;
    try {
      const delta = actual - reservation.usd;
      if (delta !== 0) await this.#book(delta, id, via);
      if (reservation.estimate > 0 && actual > 0) this.#calibration = Math.max(this.#calibration, actual / reservation.estimate);
      if (actual > 0) this.#calibrated = true;
      return actual;
    } finally {
      // Even when booking fails: the calls waiting on this one must not wait for ever.
      if (reservation.pilot === true) this.#landPilot();
    }
  }

  /** Books a settled amount: on the cap counter of a capped run, else as plain spend. */
  async #book(usd: number, bookingId: string | undefined, via: Pick<RunLedger, 'addCost'> | undefined): Promise<void> {
    const { ledger, runId, capUsd } = this.#opts;
    if (capUsd === null) await (via ?? ledger).addCost(runId, usd, bookingId);
    else await ledger.trySpend(runId, usd, null, bookingId);
  }

  /** Lets the calls waiting on the pilot go on (one of them becomes the next pilot if still uncalibrated). */
  #landPilot(): void {
    const end = this.#endPilot;
    this.#pilot = undefined;
    this.#endPilot = undefined;
    end?.();
  }

  /** Returns an unused reservation (the call failed before it was billed). */
  async release(reservation: Reservation): Promise<void> {
    if (!reservation.settled) await this.settle(reservation, null);
  }
}

/** The booking id of one step of a call (none for a call without an id). */
function booking(callId: string | undefined, step: string): string | undefined {
  return callId === undefined ? undefined : `${callId}/${step}`;
}
