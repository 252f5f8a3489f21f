import { describe, expect, it } from 'vitest';
import { averageRanks, exactMatch, mulberry32, pearson, spearman } from '#core/metrics/index.ts';

// Pearson by the one-pass "computational" formula, independent of the library's two-pass one.
function pearsonComputational(x: number[], y: number[]): number {
  const n = x.length;
  let sx = 0,
    sy = 0,
    sxx = 0,
    syy = 0,
    sxy = 0;
  for (let i = 0; i < n; i++) {
    const a = x[i] as number;
    const b = y[i] as number;
    sx += a;
    sy += b;
    sxx += a * a;
    syy += b * b;
    sxy += a * b;
  }
  return (n * sxy - sx * sy) / Math.sqrt((n * sxx - sx * sx) * (n * syy - sy * sy));
}

// Spearman without ties by the textbook rank-difference formula 1 − 6Σd²/(n(n²−1)).
function spearmanNoTies(x: number[], y: number[]): number {
  const rank = (v: number[]) => v.map((a) => 1 + v.filter((b) => b < a).length);
  const rx = rank(x);
  const ry = rank(y);
  const n = x.length;
  const d2 = rx.reduce((s, r, i) => s + (r - (ry[i] as number)) ** 2, 0);
  return 1 - (6 * d2) / (n * (n * n - 1));
}

function randomData(seed: number, n: number): [number[], number[]] {
  const rand = mulberry32(seed);
  const x = Array.from({ length: n }, () => rand() * 10);
  const y = x.map((v) => v * 0.5 + rand() * 6);
  return [x, y];
}

describe('pearson', () => {
  it('matches a hand-computed value', () => {
    // mean x = 2, mean y = 5/3; Sxy = 1, Sxx = 2, Syy = 2/3 → r = 1/sqrt(4/3) = sqrt(3)/2
    expect(pearson([1, 2, 3], [1, 2, 2]).value).toBeCloseTo(Math.sqrt(3) / 2, 14);
  });

  it('matches the computational formula on random data', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const [x, y] = randomData(seed, 5 + seed);
      expect(pearson(x, y).value).toBeCloseTo(pearsonComputational(x, y), 10);
    }
  });

  it('is exactly ±1 for perfectly linear data', () => {
    expect(pearson([1, 2, 3, 4], [3, 5, 7, 9]).value).toBe(1);
    expect(pearson([1, 2, 3, 4], [8, 6, 4, 2]).value).toBe(-1);
  });

  it.each([
    [[2, 2, 2], [1, 2, 3], 'constant x'],
    [[1, 2, 3], [0.1, 0.1, 0.1], 'constant y'],
    [[1], [1], 'n=1 < 2'],
    [[], [], 'n=0 < 2'],
    [[1, 2], [1, 2, 3], 'length mismatch: 2 vs 3'],
  ])('is absent for %j vs %j: %s', (x, y, reason) => {
    expect(pearson(x, y)).toEqual({ value: null, reason });
    expect(spearman(x, y)).toEqual({ value: null, reason });
  });
});

describe('spearman', () => {
  it('gives tied values the average of their ranks', () => {
    expect(averageRanks([10, 20, 20, 30])).toEqual([1, 2.5, 2.5, 4]);
    expect(averageRanks([3, 1, 3, 3, 2])).toEqual([4, 1, 4, 4, 2]);
  });

  it('matches the rank-difference formula on data without ties', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const [x, y] = randomData(100 + seed, 4 + seed);
      expect(spearman(x, y).value).toBeCloseTo(spearmanNoTies(x, y), 12);
    }
  });

  it('matches a hand-computed value with ties', () => {
    // ranks x = [1, 2.5, 2.5, 4], y = [1, 3, 2, 4]: Sxy = 4.5, Sxx = 4.5, Syy = 5 → 3/sqrt(10)
    expect(spearman([1, 2, 2, 3], [1, 3, 2, 4]).value).toBeCloseTo(3 / Math.sqrt(10), 14);
  });

  it('is 1 for any monotone increasing relation', () => {
    expect(spearman([1, 2, 3, 4, 5], [1, 8, 27, 64, 125]).value).toBe(1);
  });
});

describe('exactMatch', () => {
  it('counts an unparseable prediction as wrong', () => {
    expect(exactMatch([1, null, 3, 4], [1, 2, 3, 5])).toEqual({ value: 0.5 });
  });

  it('is absent for no items or a length mismatch', () => {
    expect(exactMatch([], [])).toEqual({ value: null, reason: 'no items' });
    expect(exactMatch([1], [1, 2])).toEqual({ value: null, reason: 'length mismatch: 1 vs 2' });
  });
});
