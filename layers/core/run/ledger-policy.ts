/**
 * The RunLedger's rules, written once for every adapter (as Powertools' idempotency keeps
 * hashing and expiry in its base persistence layer and only storage in the DynamoDB one):
 * the file ledger and the DynamoDB ledger implement storage primitives and ask these
 * functions what is allowed. Pure: no I/O.
 *
 * @example
 * if (!withinCap(spent, usd, capUsd)) return false;          // a journal that can add
 * const limit = spendLimit(usd, capUsd);                       // a store whose condition cannot add
 * if (!statusMayChange(current)) return;                       // a cancel is final
 */
import type { RunStatus } from '../ports.ts';

/** Sums of binary fractions must not refuse a spend that lands exactly on the cap. */
export const COST_CAP_TOLERANCE_USD = 1e-12;

/** The status no later write may change (RunLedger.setStatus). */
export const FINAL_STATUS: RunStatus = 'cancelled';

/** Whether a spend is held to the cap at all: an uncapped run and a refund never are. */
function capped(usd: number, capUsd: number | null): capUsd is number {
  return capUsd !== null && usd > 0;
}

/** Whether adding `usd` to `spentUsd` stays within `capUsd` (within the tolerance). */
export function withinCap(spentUsd: number, usd: number, capUsd: number | null): boolean {
  return !capped(usd, capUsd) || spentUsd + usd <= capUsd + COST_CAP_TOLERANCE_USD;
}

/**
 * The same rule for a store whose condition cannot add (a DynamoDB condition expression): the
 * highest spend before this one at which it is allowed, or null when it is not held to the cap.
 */
export function spendLimit(usd: number, capUsd: number | null): number | null {
  return capped(usd, capUsd) ? capUsd - usd + COST_CAP_TOLERANCE_USD : null;
}

/** Whether a run in status `current` may take another status: a cancel is final. */
export function statusMayChange(current: RunStatus | undefined): boolean {
  return current !== FINAL_STATUS;
}
