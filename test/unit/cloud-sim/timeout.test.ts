import { describe, expect, it } from 'vitest';
import { applyTimeout, MAX_TIMEOUT_MS } from '../../../sim/cloud/limits/timeout.ts';

describe('function timeout', () => {
  it('bills a timed-out invocation its timeout and says it timed out', () => {
    expect(applyTimeout(400_000, 300_000)).toEqual({ billedMs: 300_000, timedOut: true });
    expect(applyTimeout(1_000, 300_000)).toEqual({ billedMs: 1_000, timedOut: false });
  });

  it('refuses a timeout above 15 minutes', () => {
    expect(() => applyTimeout(1, MAX_TIMEOUT_MS + 1)).toThrow(/exceeds/);
  });
});
