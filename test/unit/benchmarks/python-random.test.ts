import { describe, expect, it } from 'vitest';
import { PythonRandom } from '#core/benchmarks/python-random.ts';

// Expected values printed by CPython 3.11.7 on this machine, e.g.
//   python3 -c "import random; r=random.Random(1234); print([r.sample(range(26),4) for _ in range(5)])"
describe("Python's random.Random, as lm-eval's few-shot sampler uses it", () => {
  it('gives the 32-bit outputs of random.Random(1234).getrandbits(32)', () => {
    const r = new PythonRandom(1234);
    expect([r.getrandbits(32), r.getrandbits(32), r.getrandbits(32)]).toEqual([4150886329, 3342196574, 1892932127]);
  });

  it('draws what random.Random(1234).sample(range(26), 4) draws, call after call (selected-set branch: 26 > 21)', () => {
    const r = new PythonRandom(1234);
    const draws = Array.from({ length: 5 }, () => r.sampleIndices(26, 4));
    expect(draws).toEqual([
      [24, 14, 3, 0],
      [2, 25, 18, 1],
      [21, 22, 2, 3],
      [24, 11, 7, 0],
      [0, 25, 11, 20],
    ]);
  });

  it('draws what sample(range(1000), 4) draws (selected-set branch, large population)', () => {
    const r = new PythonRandom(1234);
    const draws = Array.from({ length: 3 }, () => r.sampleIndices(1000, 4));
    expect(draws).toEqual([
      [989, 796, 451, 119],
      [7, 92, 932, 965],
      [961, 826, 596, 35],
    ]);
  });

  it('seeds from 0 and from seeds wider than 32 bits; the working-copy branch (n ≤ 21, and n ≤ 21 + 4^⌈log₄ 3k⌉ for k > 5)', () => {
    const zero = new PythonRandom(0);
    expect([zero.sampleIndices(13, 4), zero.sampleIndices(13, 4)]).toEqual([
      [6, 12, 0, 4],
      [8, 7, 6, 4],
    ]);
    const wide = new PythonRandom(2 ** 40 + 5);
    expect([wide.sampleIndices(30, 8), wide.sampleIndices(30, 8)]).toEqual([
      [16, 29, 8, 21, 0, 28, 1, 5],
      [2, 25, 26, 4, 7, 20, 21, 27],
    ]);
    expect(new PythonRandom(7).sampleIndices(100, 10)).toEqual([41, 19, 50, 83, 6, 9, 68, 12, 46, 74]);
  });

  it('refuses a sample larger than its population, as Python does', () => {
    expect(() => new PythonRandom(1).sampleIndices(3, 4)).toThrow(/sample larger than population/);
  });
});
