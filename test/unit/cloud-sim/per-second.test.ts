import { describe, expect, it } from 'vitest';
import { HORIZON_MS, PerSecondCounts } from '../../../sim/cloud/limits/per-second.ts';

describe('per-second counts', () => {
  it('keeps one count per key, kind and whole second, whatever order the requests come in', () => {
    const counts = new PerSecondCounts<'a' | 'b'>();
    counts.add('k', 'a', 3, 2_500);
    counts.add('k', 'a', 4, 1_999);
    counts.add('k', 'a', 1, 2_000);

    expect(counts.used('k', 'a', 2_999)).toBe(4);
    expect(counts.used('k', 'a', 1_000)).toBe(4);
    expect(counts.used('k', 'b', 2_000)).toBe(0);
    expect(counts.used('other', 'a', 2_000)).toBe(0);
  });

  it('drops the seconds older than the horizon before the latest one, and keeps those within it', () => {
    const counts = new PerSecondCounts<'a'>();
    counts.add('old', 'a', 1, 0);
    const late = HORIZON_MS + 2_000;
    // The 50,000th addition sweeps.
    for (let i = 0; i < 49_999; i++) counts.add(`k${i % 10}`, 'a', 1, late + (i % 3) * 1_000);

    expect(counts.used('old', 'a', 0)).toBe(0);
    expect(counts.used('k0', 'a', late)).toBeGreaterThan(0);
    expect(counts.slots).toBe(30);
  });
});
