/**
 * Gold digits of the ABRICOT protocols. The CALAMITA rule is checked against Python itself
 * (python3 is a prerequisite of the project): `min(4, round(5 * mean)) + 1` on the same
 * doubles, including values whose 5× product is not exact in binary.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { calamitaGold, discretise, pythonRound } from '#core/benchmarks/likert-gold.ts';

/** The next double above (dir = 1) or below (dir = -1) a positive x. */
function nextDouble(x: number, dir: 1 | -1): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) + BigInt(dir));
  return view.getFloat64(0);
}

function pythonGolds(means: readonly number[]): number[] {
  // String(x) is the shortest round-trip text, so Python's float() reads the same double.
  const script = 'import sys, json\nprint(json.dumps([min(4, round(5 * float(m))) + 1 for m in sys.argv[1:]]))';
  return JSON.parse(execFileSync('python3', ['-c', script, ...means.map(String)], { encoding: 'utf8' })) as number[];
}

describe("Python's round", () => {
  it.each([
    [0.5, 0],
    [1.5, 2],
    [2.5, 2],
    [3.5, 4],
    [4.5, 4],
    [0.49999999999999994, 0],
    [2.5000000000000004, 3],
    [-0.5, 0],
    [-1.5, -2],
    [7, 7],
  ])('rounds %s to %s, ties to even', (x, expected) => {
    expect(pythonRound(x)).toBe(expected);
  });
});

describe('CALAMITA gold digit', () => {
  it.each([
    // mean, 5·mean in doubles, CALAMITA digit, paper digit
    [0.1, 0.5, 1, 1],
    [0.3, 1.5, 3, 2],
    [0.5, 2.5, 3, 3],
    [0.7, 3.5, 5, 4],
    [0.9, 4.5, 5, 5],
    [0, 0, 1, 1],
    [1, 5, 5, 5],
  ])('mean %s (5× = %s) gives %s, where the paper bins give %s', (mean, times5, calamita, paper) => {
    expect(5 * mean).toBe(times5);
    expect(calamitaGold(mean)).toBe(calamita);
    expect(discretise(mean)).toBe(paper);
  });

  it('agrees with Python on every rounding edge and the doubles on either side of it', () => {
    const means: number[] = [];
    for (let k = 0; k <= 100; k++) means.push(k / 100, k / 20, k / 10);
    for (const edge of [0.1, 0.3, 0.5, 0.7, 0.9, 0.2, 0.4, 0.6, 0.8])
      means.push(nextDouble(edge, 1), nextDouble(edge, -1), nextDouble(nextDouble(edge, 1), 1), nextDouble(nextDouble(edge, -1), -1));
    // the tie points k/10 + 1/10 reached by arithmetic rather than by a literal
    for (let k = 0; k < 10; k += 2) means.push(k / 10 + 0.1, (2 * k + 1) / 20, 0.1 * (k + 1));
    const expected = pythonGolds(means);
    expect(means.map(calamitaGold)).toEqual(expected);
  });
});
