import { describe, expect, it } from 'vitest';
import { RECURSION_HOP_LIMIT, recursionAllows } from '../../../bench/cloud-sim/limits/recursion.ts';

describe('Lambda recursive loop detection', () => {
  it('lets a chain invoke a function 16 times and drops the 17th', () => {
    expect(RECURSION_HOP_LIMIT).toBe(16);
    expect(recursionAllows(16)).toBe(true);
    expect(recursionAllows(17)).toBe(false);
  });
});
