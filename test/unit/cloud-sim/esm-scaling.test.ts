import { describe, expect, it } from 'vitest';
import { esmAllowedBatches } from '../../../sim/cloud/limits/esm-scaling.ts';

describe('SQS event source mapping scaling', () => {
  it('starts at five batches, adds 300 a minute and stops at 1,250 (the account limit binds first at its default 1,000)', () => {
    expect(esmAllowedBatches(0)).toBe(5);
    expect(esmAllowedBatches(60_000)).toBe(305);
    expect(esmAllowedBatches(3 * 60_000)).toBe(905);
    expect(esmAllowedBatches(4 * 60_000)).toBe(1205);
    expect(esmAllowedBatches(10 * 60_000)).toBe(1250);
  });

  it('never exceeds maxConcurrency, which must be an integer from 2 to 1,000', () => {
    expect(esmAllowedBatches(10 * 60_000, 92)).toBe(92);
    expect(esmAllowedBatches(10 * 60_000, 1000)).toBe(1000);
    expect(() => esmAllowedBatches(0, 1)).toThrow(/2 to 1000/);
    expect(() => esmAllowedBatches(0, 1001)).toThrow(/2 to 1000/);
    expect(() => esmAllowedBatches(0, 2.5)).toThrow(/2 to 1000/);
  });
});
