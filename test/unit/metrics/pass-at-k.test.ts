import { describe, expect, it } from 'vitest';
import { mulberry32, passAtK } from '#core/metrics/index.ts';

function binomial(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let result = 1n;
  for (let i = 1; i <= k; i++) result = (result * BigInt(n - k + i)) / BigInt(i);
  return result;
}

// 1 − C(n−c, k)/C(n, k) with exact integers, divided at 40 decimal digits of precision.
function closedForm(n: number, c: number, k: number): number {
  const scale = 10n ** 40n;
  const ratio = (binomial(n - c, k) * scale) / binomial(n, k);
  return 1 - Number(ratio) / Number(scale);
}

describe('passAtK', () => {
  it('matches the closed form with exact binomials on random (n, c, k)', () => {
    const rand = mulberry32(20240601);
    for (let trial = 0; trial < 500; trial++) {
      const n = 1 + Math.floor(rand() * 200);
      const c = Math.floor(rand() * (n + 1));
      const k = 1 + Math.floor(rand() * n);
      expect(passAtK(n, c, k)).toBeCloseTo(closedForm(n, c, k), 12);
    }
  });

  it('equals the share of correct samples for k = 1', () => {
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 15);
    expect(passAtK(7, 2, 1)).toBeCloseTo(2 / 7, 15);
  });

  it('is 0 when no sample is correct', () => {
    expect(passAtK(10, 0, 1)).toBe(0);
    expect(passAtK(10, 0, 10)).toBe(0);
  });

  it('is 1 when every sample is correct', () => {
    expect(passAtK(10, 10, 1)).toBe(1);
    expect(passAtK(5, 5, 5)).toBe(1);
  });

  it('is 1 when fewer than k samples are wrong', () => {
    expect(passAtK(10, 2, 9)).toBe(1);
    expect(passAtK(10, 1, 10)).toBe(1);
  });

  it('is undefined when n < k', () => {
    expect(passAtK(1, 1, 10)).toBeUndefined();
    expect(passAtK(4, 0, 5)).toBeUndefined();
  });

  it('stays within [0, 1] for large n', () => {
    const value = passAtK(100000, 3, 50);
    expect(value).toBeGreaterThan(0);
    expect(value).toBeLessThan(1);
    expect(value).toBeCloseTo(closedForm(100000, 3, 50), 10);
  });

  it.each([
    [5, 6, 1],
    [5, -1, 1],
    [5, 2, 0],
    [5.5, 2, 1],
  ])('rejects invalid arguments n=%s c=%s k=%s', (n, c, k) => {
    expect(() => passAtK(n, c, k)).toThrow(RangeError);
  });
});
