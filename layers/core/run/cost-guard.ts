/**
 * The cost guard: the one owner of a run's spend, for local runs and cloud workers alike.
 * Before a call it reserves the call's projected cost in the ledger through
 * `RunLedger.trySpend` (atomic, so concurrent calls — in one process or in a hundred
 * Lambdas — never reserve past the cap together); after the call it settles the
 * reservation to the call's actual cost. The ledger's spend is therefore what was spent
 * plus what calls in flight may still spend. Projections learn from real usage: each is
 * scaled by the largest actual/projected ratio seen.
 *
 * A process killed mid-call leaves its reservation in the ledger: the spend errs high,
 * never low.
 */
import { RunStopped } from '../errors.ts';
import type { RunLedger } from '../ports.ts';
import type { TokenUsage } from '../types.ts';

/** What a call reserved; settle it exactly once. */
export interface Reservation {
  readonly usd: number;
  readonly estimate: number;
  settled: boolean;
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
   * Reserves the projected cost of one call (`estimate` scaled by the calibration).
   * @throws RunStopped when the reservation would take the run past its cap.
   */
  async reserve(estimate: number): Promise<Reservation> {
    const { ledger, runId, capUsd } = this.#opts;
    if (capUsd === null) return { usd: 0, estimate, settled: false };
    const usd = estimate * this.#calibration;
    if (usd > 0 && !(await ledger.trySpend(runId, usd, capUsd))) {
      const spent = (await ledger.getRun(runId))?.costUsd ?? 0;
      throw new RunStopped(`cost cap: $${spent.toFixed(6)} spent or reserved, the next call may cost up to $${usd.toFixed(6)}, cap $${capUsd}`);
    }
    return { usd, estimate, settled: false };
  }

  /** Books the actual cost of a billed call against its reservation; returns the USD booked. */
  async settle(reservation: Reservation, usage: TokenUsage | null): Promise<number> {
    const actual = usage ? this.costOf(usage) : 0;
    if (reservation.settled) {
      if (actual !== 0) await this.#opts.ledger.trySpend(this.#opts.runId, actual, null);
      return actual;
    }
    reservation.settled = true;
    const delta = actual - reservation.usd;
    if (delta !== 0) await this.#opts.ledger.trySpend(this.#opts.runId, delta, null);
    if (reservation.estimate > 0 && actual > 0) this.#calibration = Math.max(this.#calibration, actual / reservation.estimate);
    return actual;
  }

  /** Returns an unused reservation (the call failed before it was billed). */
  async release(reservation: Reservation): Promise<void> {
    if (!reservation.settled) await this.settle(reservation, null);
  }
}
