import { describe, expect, it } from 'vitest';
import { nextTokenScores } from '#providers/next-token.ts';

const CHOICES = [' 1', ' 2', ' 3', ' 4', ' 5'];

describe('nextTokenScores', () => {
  it('merges "3" and " 3" into one probability', () => {
    const s = nextTokenScores(
      [
        { token: '3', logprob: Math.log(0.3) },
        { token: ' 3', logprob: Math.log(0.2) },
        { token: '4', logprob: Math.log(0.4) },
      ],
      CHOICES,
    );
    expect(s.logprobs[2]).toBeCloseTo(Math.log(0.5), 12);
    expect(s.logprobs[3]).toBeCloseTo(Math.log(0.4), 12);
  });

  it('gives a choice missing from the top-k a floor below every observed one, and records it', () => {
    const s = nextTokenScores(
      [
        { token: '2', logprob: -0.5 },
        { token: 'Il', logprob: -2 },
      ],
      CHOICES,
    );
    expect(s.floor).toBeCloseTo(-2 - Math.LN2, 12);
    expect(s.floored).toEqual([0, 2, 3, 4]);
    expect(s.logprobs[1]).toBe(-0.5);
    expect(s.logprobs[4]).toBe(s.floor);
  });

  it('reads byte-level token strings (Ġ3) as the text they stand for', () => {
    const s = nextTokenScores([{ token: 'Ġ5', logprob: -0.1 }], CHOICES);
    expect(s.logprobs[4]).toBe(-0.1);
    expect(s.floored).toEqual([0, 1, 2, 3]);
  });

  it('does not take "33" or "\\n3" for "3"', () => {
    const s = nextTokenScores(
      [
        { token: '33', logprob: -0.1 },
        { token: '\n3', logprob: -0.2 },
        { token: '1', logprob: -3 },
      ],
      CHOICES,
    );
    expect(s.floored).toContain(2);
  });
});
