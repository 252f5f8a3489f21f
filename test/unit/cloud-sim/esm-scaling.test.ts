import { describe, expect, it } from 'vitest';
import { esmAllowedBatches } from '../../../bench/cloud-sim/limits/esm-scaling.ts';

describe('SQS event source mapping scaling', () => {
  it('starts at five batches, adds 300 a minute and stops at 1,000', () => {
    expect(esmAllowedBatches(0)).toBe(5);
    expect(esmAllowedBatches(60_000)).toBe(305);
    expect(esmAllowedBatches(10 * 60_000)).toBe(1000);
  });

  it('never exceeds maxConcurrency, which must be 2 to 1,000', () => {
    expect(esmAllowedBatches(10 * 60_000, 92)).toBe(92);
    expect(() => esmAllowedBatches(0, 1)).toThrow(/2 to 1000/);
  });
});
