import { describe, expect, it } from 'vitest';
import { answerTokenScores, nextTokenDistrust, nextTokenScores, type GeneratedPosition } from '#providers/next-token.ts';

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

/** Mistral answering " 4" as `▁` then `4`: a stray no-space "2" beside the `▁` at the first position. */
const spaceThenFour: GeneratedPosition[] = [
  {
    token: '▁',
    logprob: -0.05,
    top: [
      { token: '▁', logprob: -0.05 },
      { token: '2', logprob: -3.2 },
      { token: '4', logprob: -4.5 },
    ],
  },
  {
    token: '4',
    logprob: -0.1,
    top: [
      { token: '4', logprob: -0.1 },
      { token: '3', logprob: -3 },
    ],
  },
];

describe('answerTokenScores', () => {
  it('reads the digit after a whitespace-only first token, not the stray digits beside it', () => {
    const s = answerTokenScores(spaceThenFour, CHOICES);
    expect(s.read).toBe(1);
    expect(s.logprobs.indexOf(Math.max(...s.logprobs))).toBe(3);
    // "4" both ways: stray at the first position, and after the space.
    expect(s.logprobs[3]).toBeCloseTo(Math.log(Math.exp(-4.5) + Math.exp(-0.05 - 0.1)), 12);
    expect(s.logprobs[2]).toBeCloseTo(-0.05 - 3, 12);
    expect(s.floored).toEqual([0, 4]);
  });

  it('reads the first position when the answer starts with its digit', () => {
    const s = answerTokenScores([{ token: 'Ġ3', logprob: -0.2, top: [{ token: 'Ġ3', logprob: -0.2 }] }, ...spaceThenFour.slice(1)], CHOICES);
    expect(s.read).toBe(0);
    expect(s.logprobs[2]).toBe(-0.2);
  });

  it('never ranks a stray digit seen before the lead-in below a choice seen nowhere', () => {
    // k = 2 after the space: "1" is absent there, its stray no-space variant (-6) is far below
    // that position's floor; "5" is seen nowhere.
    const s = answerTokenScores(
      [
        {
          ...spaceThenFour[0]!,
          top: [
            { token: '▁', logprob: -0.05 },
            { token: '1', logprob: -6 },
          ],
        },
        spaceThenFour[1]!,
      ],
      CHOICES,
    );
    expect(s.floor).toBeCloseTo(-0.05 - 3 - Math.LN2, 12);
    expect(s.floored).toEqual([1, 4]);
    // P("1") = P("1" at 0) + P(▁)·P("1" | ▁), the second unseen: at most the floor.
    expect(s.logprobs[0]).toBeCloseTo(Math.log(Math.exp(-6) + Math.exp(s.floor)), 12);
    expect(s.logprobs[0]).toBeGreaterThan(s.logprobs[4]!);
    expect(s.logprobs[3]).toBeGreaterThan(s.logprobs[0]!);
  });

  it("takes vLLM's empty decoded string for a lone ▁ as whitespace", () => {
    const s = answerTokenScores([{ ...spaceThenFour[0]!, token: '' }, spaceThenFour[1]!], CHOICES);
    expect(s.read).toBe(1);
  });
});

describe('nextTokenDistrust', () => {
  it('accepts a probe answer with a digit among the top-k at the position read', () => {
    expect(nextTokenDistrust(spaceThenFour)).toBeUndefined();
  });

  it('refuses one whose position read holds no digit 1–5, naming the position', () => {
    const words: GeneratedPosition[] = [
      {
        token: 'Il',
        logprob: -0.1,
        top: [
          { token: 'Il', logprob: -0.1 },
          { token: 'La', logprob: -2 },
        ],
      },
    ];
    expect(nextTokenDistrust(words)).toMatch(/no digit 1–5 among the top 2 alternatives .*position 0, "Il"/);
  });

  it('refuses one whose only digits are strays beside the lead-in, not at the position read', () => {
    const wordAfterSpace: GeneratedPosition[] = [
      spaceThenFour[0]!,
      {
        token: 'Il',
        logprob: -0.1,
        top: [
          { token: 'Il', logprob: -0.1 },
          { token: 'La', logprob: -2 },
        ],
      },
    ];
    expect(nextTokenDistrust(wordAfterSpace)).toMatch(/position 1, "Il"/);
  });
});
