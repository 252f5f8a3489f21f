import { describe, expect, it } from 'vitest';
import { allTied, tieWarning } from '#core/judging/likert-ties.ts';

describe('likert ties', () => {
  it('finds items whose five choices scored the same', () => {
    expect(allTied([-1, -1, -1, -1, -1])).toBe(true);
    expect(allTied([-1, -1, -1, -1, -0.9])).toBe(false);
  });

  it('warns when more than 5% of the scored items are tied, not at 1 in 20', () => {
    const distinct = [-3, -0.1, -4, -4, -4];
    const tied = [-2, -2, -2, -2, -2];
    expect(tieWarning([tied, ...Array.from({ length: 19 }, () => distinct)])).toBeUndefined();
    expect(tieWarning([tied, tied, ...Array.from({ length: 18 }, () => distinct)])).toMatch(/^2 of 20 scored items \(10%\)/);
    expect(tieWarning([])).toBeUndefined();
  });
});
