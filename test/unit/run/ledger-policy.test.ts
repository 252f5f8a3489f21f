import { describe, expect, it } from 'vitest';
import { COST_CAP_TOLERANCE_USD, spendLimit, statusMayChange, withinCap } from '#core/run/ledger-policy.ts';
import type { RunStatus } from '#core/ports.ts';

describe('ledger policy', () => {
  it('allows a spend that lands exactly on the cap despite binary fractions', () => {
    expect(0.1 + 0.2).toBeGreaterThan(0.3);
    expect(withinCap(0.1, 0.2, 0.3)).toBe(true);
    expect(withinCap(0.1, 0.2 + 2 * COST_CAP_TOLERANCE_USD, 0.3)).toBe(false);
  });

  it('never holds an uncapped run or a refund to the cap', () => {
    expect(withinCap(5, 1, null)).toBe(true);
    expect(withinCap(5, -1, 1)).toBe(true);
    expect(spendLimit(1, null)).toBeNull();
    expect(spendLimit(-1, 1)).toBeNull();
  });

  it('gives a store that cannot add the same rule as a limit on the spend before', () => {
    for (const [spent, usd, cap] of [
      [0.1, 0.2, 0.3],
      [0.5, 0.25, 0.7],
      [0, 1, 1],
      [0.9999, 0.0002, 1],
    ] as const) {
      const limit = spendLimit(usd, cap);
      expect(limit === null || spent <= limit, `${spent} + ${usd} within ${cap}`).toBe(withinCap(spent, usd, cap));
    }
  });

  it.each<[RunStatus | undefined, boolean]>([
    ['cancelled', false],
    ['running', true],
    ['stopped', true],
    [undefined, true],
  ])('lets a run in status %s take another status: %s (a cancel is final)', (current, may) => {
    expect(statusMayChange(current)).toBe(may);
  });
});
