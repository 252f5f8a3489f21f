import { describe, expect, it } from 'vitest';
import { sumCovering, sumTail, withCumulativeOffsets, charLength } from '#providers/logprobs.ts';

describe('sumCovering', () => {
  it('sums the tokens inside the choice span', () => {
    const tokens = withCumulativeOffsets([
      { text: 'Risposta', logprob: null },
      { text: ':', logprob: -0.5 },
      { text: ' ', logprob: -0.1 },
      { text: '1', logprob: -1.5 },
      { text: '2', logprob: -2.0 },
    ]);
    expect(sumCovering(tokens, 10, 12)).toBe(-3.5);
  });

  it('counts a token straddling the prompt and the choice whole', () => {
    const tokens = withCumulativeOffsets([
      { text: 'Risposta:', logprob: null },
      { text: ' 4', logprob: -0.7 },
    ]);
    // prompt "Risposta: " (10 chars), choice "4"
    expect(sumCovering(tokens, 10, 11)).toBe(-0.7);
  });

  it('measures offsets in code points like Python servers do', () => {
    const tokens = withCumulativeOffsets([
      { text: '😀', logprob: null },
      { text: '5', logprob: -0.25 },
    ]);
    expect(charLength('😀')).toBe(1);
    expect(sumCovering(tokens, 1, 2)).toBe(-0.25);
  });

  it('rejects a choice token without a log-probability as malformed', () => {
    const tokens = withCumulativeOffsets([{ text: '3', logprob: null }]);
    expect(() => sumCovering(tokens, 0, 1)).toThrow(/no log-probability/);
  });

  it('rejects a span no token covers as malformed', () => {
    const tokens = withCumulativeOffsets([{ text: 'abc', logprob: -1 }]);
    expect(() => sumCovering(tokens, 5, 6)).toThrow(/no token covers/);
  });
});

describe('sumTail', () => {
  it('walks back from the end until the choice is covered', () => {
    const tokens = [
      { text: '<s>', logprob: null },
      { text: 'Risposta', logprob: -1 },
      { text: ':', logprob: -0.5 },
      { text: ' 1', logprob: -0.25 },
      { text: '0', logprob: -0.125 },
    ];
    expect(sumTail(tokens, 2)).toBe(-0.375);
  });

  it('skips empty special tokens at the end', () => {
    expect(sumTail([{ text: 'x', logprob: -1 }, { text: '4', logprob: -0.5 }, { text: '', logprob: -9 }], 1)).toBe(-0.5);
  });

  it('rejects a prompt shorter than the choice as malformed', () => {
    expect(() => sumTail([{ text: '4', logprob: -1 }], 3)).toThrow(/cover/);
  });
});
