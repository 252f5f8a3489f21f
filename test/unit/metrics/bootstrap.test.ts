import { describe, expect, it } from 'vitest';
import { bootstrapCI, mulberry32, pairedBootstrap, quantile } from '#core/metrics/index.ts';

const mean = (u: readonly number[]): number | null => (u.length === 0 ? null : u.reduce((s, x) => s + x, 0) / u.length);

function randomValues(seed: number, n: number): number[] {
  const rand = mulberry32(seed);
  return Array.from({ length: n }, () => rand());
}

describe('mulberry32', () => {
  it('repeats its sequence for the same seed and differs for another', () => {
    const a = mulberry32(5);
    const b = mulberry32(5);
    const c = mulberry32(6);
    const seqA = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(seqA);
    expect([c(), c(), c()]).not.toEqual(seqA);
    for (const v of seqA) expect(v >= 0 && v < 1).toBe(true);
  });
});

describe('quantile', () => {
  it('interpolates between order statistics', () => {
    expect(quantile([1, 2, 3, 4, 5], 0.5)).toBe(3);
    expect(quantile([0, 10], 0.25)).toBe(2.5);
    expect(quantile([7], 0.975)).toBe(7);
  });
});

describe('bootstrapCI', () => {
  it('returns the same interval for the same seed', () => {
    const data = randomValues(1, 50);
    expect(bootstrapCI(data, mean, { seed: 42 })).toEqual(bootstrapCI(data, mean, { seed: 42 }));
  });

  it('returns a different interval for a different seed', () => {
    const data = randomValues(1, 50);
    expect(bootstrapCI(data, mean, { seed: 42 })).not.toEqual(bootstrapCI(data, mean, { seed: 43 }));
  });

  it('contains its estimate', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const data = randomValues(seed, 2 + seed);
      const ci = bootstrapCI(data, mean, { seed, iterations: 500 });
      expect(ci.estimate).toBe(mean(data));
      expect(ci.low).toBeLessThanOrEqual(ci.estimate as number);
      expect(ci.high).toBeGreaterThanOrEqual(ci.estimate as number);
    }
  });

  it('approximates the normal-theory interval of a mean on a large sample', () => {
    // 400 zeros and ones, half each: standard error 0.025, so the 95% interval is about ±0.049.
    const data = Array.from({ length: 400 }, (_, i) => i % 2);
    const ci = bootstrapCI(data, mean, { seed: 3, iterations: 2000 });
    expect(ci.low).toBeGreaterThan(0.5 - 0.049 - 0.01);
    expect(ci.low).toBeLessThan(0.5 - 0.049 + 0.01);
    expect(ci.high).toBeGreaterThan(0.5 + 0.049 - 0.01);
    expect(ci.high).toBeLessThan(0.5 + 0.049 + 0.01);
  });

  it('narrows as the level drops', () => {
    const data = randomValues(9, 40);
    const wide = bootstrapCI(data, mean, { seed: 1, level: 0.95 });
    const narrow = bootstrapCI(data, mean, { seed: 1, level: 0.5 });
    expect(narrow.low).toBeGreaterThan(wide.low as number);
    expect(narrow.high).toBeLessThan(wide.high as number);
  });

  it('collapses to the estimate for one unit or constant units', () => {
    expect(bootstrapCI([0.7], mean, { seed: 1 })).toEqual({ estimate: 0.7, low: 0.7, high: 0.7, resamples: 1000 });
    const constant = bootstrapCI([2, 2, 2, 2], mean, { seed: 1, iterations: 100 });
    expect([constant.low, constant.high]).toEqual([2, 2]);
  });

  it('has no interval when there are no units or the statistic is undefined', () => {
    expect(bootstrapCI([], mean, { seed: 1 })).toEqual({ estimate: null, low: null, high: null, resamples: 0 });
    expect(bootstrapCI([1, 2], () => null, { seed: 1 })).toEqual({ estimate: null, low: null, high: null, resamples: 0 });
  });

  it('leaves out resamples on which the statistic is undefined', () => {
    // Undefined whenever the resample lacks the value 1: about (1/2)^2 of resamples of two units.
    const needsOne = (u: readonly number[]) => (u.includes(1) ? 1 : null);
    const ci = bootstrapCI([0, 1], needsOne, { seed: 2, iterations: 1000 });
    expect(ci.resamples).toBeGreaterThan(650);
    expect(ci.resamples).toBeLessThan(850);
    expect([ci.low, ci.high]).toEqual([1, 1]);
  });

  it('rejects a level outside (0, 1) and a non-positive iteration count', () => {
    expect(() => bootstrapCI([1], mean, { seed: 1, level: 1 })).toThrow(RangeError);
    expect(() => bootstrapCI([1], mean, { seed: 1, iterations: 0 })).toThrow(RangeError);
  });
});

describe('pairedBootstrap', () => {
  const keys = Array.from({ length: 30 }, (_, i) => `t${String(i).padStart(2, '0')}`);
  const base = randomValues(11, keys.length);

  it('finds an obvious improvement with its sign and a small opposite share', () => {
    const a = new Map(keys.map((k, i) => [k, base[i] as number]));
    const b = new Map(keys.map((k, i) => [k, (base[i] as number) + 0.2 + 0.01 * (i % 3)]));
    const r = pairedBootstrap(a, b, mean, { seed: 5 });
    expect(r.diff).toBeCloseTo((mean([...b.values()]) as number) - (mean([...a.values()]) as number), 12);
    expect(r.low).toBeGreaterThan(0);
    expect(r.pShare).toBe(0);
    expect(r.units).toBe(30);
  });

  it('reports a worsening as a negative difference', () => {
    const a = new Map(keys.map((k, i) => [k, (base[i] as number) + 0.3]));
    const b = new Map(keys.map((k, i) => [k, base[i] as number]));
    const r = pairedBootstrap(a, b, mean, { seed: 5 });
    expect(r.diff).toBeLessThan(0);
    expect(r.high).toBeLessThan(0);
  });

  it('gives a large opposite share to a difference that is noise', () => {
    const rand = mulberry32(77);
    const a = new Map(keys.map((k) => [k, rand()]));
    const b = new Map(keys.map((k) => [k, rand()]));
    const r = pairedBootstrap(a, b, mean, { seed: 5 });
    expect(r.low).toBeLessThan(0);
    expect(r.high).toBeGreaterThan(0);
    expect(r.pShare).toBeGreaterThan(0.025);
  });

  it('uses only the units both runs contain, whatever their order', () => {
    const a = new Map([
      ['x', 0],
      ['y', 1],
      ['only-a', 100],
    ]);
    const b = new Map([
      ['y', 1],
      ['only-b', -100],
      ['x', 1],
    ]);
    const reversed = new Map([...b].reverse());
    const r = pairedBootstrap(a, b, mean, { seed: 1 });
    expect(r).toMatchObject({ a: 0.5, b: 1, diff: 0.5, units: 2 });
    expect(pairedBootstrap(a, reversed, mean, { seed: 1 })).toEqual(r);
  });

  it('has a share of 1 when the runs agree exactly', () => {
    const a = new Map(keys.map((k, i) => [k, base[i] as number]));
    expect(pairedBootstrap(a, new Map(a), mean, { seed: 1 })).toMatchObject({ diff: 0, low: 0, high: 0, pShare: 1 });
  });

  it('has no difference when no unit is shared', () => {
    const r = pairedBootstrap(new Map([['x', 1]]), new Map([['y', 1]]), mean, { seed: 1 });
    expect(r).toEqual({ a: null, b: null, diff: null, low: null, high: null, pShare: null, units: 0 });
  });
});
