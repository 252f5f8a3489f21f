import { describe, expect, it } from 'vitest';
import { charLength, choiceLogprob, sumCovering, type PromptToken } from '#providers/logprobs.ts';

/** Tokens with offsets as a running sum of their lengths (what vLLM reports). */
function runningOffsets(tokens: Omit<PromptToken, 'offset'>[]): PromptToken[] {
  let offset = 0;
  return tokens.map((t) => {
    const out = { ...t, offset };
    offset += charLength(t.text);
    return out;
  });
}

describe('sumCovering', () => {
  it('sums the tokens inside the choice span', () => {
    const tokens = runningOffsets([
      { text: 'Risposta', logprob: null },
      { text: ':', logprob: -0.5 },
      { text: ' ', logprob: -0.1 },
      { text: '1', logprob: -1.5 },
      { text: '2', logprob: -2.0 },
    ]);
    expect(sumCovering(tokens, 10, 12)).toBe(-3.5);
  });

  it('counts a token straddling the prompt and the choice whole', () => {
    const tokens = runningOffsets([
      { text: 'Risposta:', logprob: null },
      { text: ' 4', logprob: -0.7 },
    ]);
    // prompt "Risposta: " (10 chars), choice "4"
    expect(sumCovering(tokens, 10, 11)).toBe(-0.7);
  });

  it('measures offsets in code points like Python servers do', () => {
    const tokens = runningOffsets([
      { text: '😀', logprob: null },
      { text: '5', logprob: -0.25 },
    ]);
    expect(charLength('😀')).toBe(1);
    expect(sumCovering(tokens, 1, 2)).toBe(-0.25);
  });

  it('rejects a choice token without a log-probability, not retryable', () => {
    const tokens = runningOffsets([{ text: '3', logprob: null }]);
    expect(() => sumCovering(tokens, 0, 1)).toThrow(/no log-probability/);
  });

  it('rejects a span no token covers', () => {
    const tokens = runningOffsets([{ text: 'abc', logprob: -1 }]);
    expect(() => sumCovering(tokens, 5, 6)).toThrow(/no token covers/);
  });
});

describe('choiceLogprob', () => {
  const context = 'Quanto è astratta "libertà"? Risposta:';

  it('walks back from the end until the choice is covered', () => {
    const tokens = [
      { text: 'Quanto è astratta "libertà"? Risposta', logprob: null },
      { text: ':', logprob: -0.5 },
      { text: ' 1', logprob: -0.25 },
      { text: '0', logprob: -0.125 },
    ];
    expect(choiceLogprob(tokens, context, ' 10')).toBe(-0.375);
  });

  it('finds the choice after an echoed BOS whose length shifts every vLLM text_offset', () => {
    // vLLM: text = the raw prompt, tokens = BOS + prompt tokens, offsets = running sum of token lengths.
    const tokens = runningOffsets([
      { text: '<|begin_of_text|>', logprob: null },
      { text: 'Quanto è astratta "libertà"? Risposta', logprob: -9 },
      { text: ':', logprob: -0.5 },
      { text: ' 4', logprob: -0.2 },
    ]);
    // Trusting the offsets alone would pick context tokens: characters 38..40 fall in the long token.
    expect(sumCovering(tokens, charLength(context), charLength(context) + 2)).not.toBe(-0.2);
    expect(choiceLogprob(tokens, context, ' 4')).toBe(-0.2);
  });

  it('reads byte-level tokens (Ġ for a space) as the text they stand for', () => {
    const tokens = [
      { text: '<|begin_of_text|>', logprob: null },
      { text: 'QuantoĠÃ¨ĠastrattaĠ"libertÃł"?ĠRisposta', logprob: -9 },
      { text: ':', logprob: -0.5 },
      { text: 'Ġ3', logprob: -0.3 },
    ];
    expect(choiceLogprob(tokens, context, ' 3')).toBe(-0.3);
  });

  it('reads SentencePiece tokens (▁ for a space, <0x0A> byte tokens)', () => {
    const tokens = [
      { text: '<s>', logprob: null },
      { text: '▁Risposta', logprob: -2 },
      { text: '<0x0A>', logprob: -1 },
      { text: '▁', logprob: -0.1 },
      { text: '5', logprob: -0.4 },
    ];
    expect(choiceLogprob(tokens, 'Risposta\n', ' 5')).toBeCloseTo(-0.5, 12);
  });

  it('counts a token spanning the context and the choice whole', () => {
    const tokens = [
      { text: 'Risposta', logprob: null },
      { text: ': 2', logprob: -1.1 },
    ];
    expect(choiceLogprob(tokens, 'Risposta:', ' 2')).toBe(-1.1);
  });

  it('skips special tokens at the end', () => {
    expect(
      choiceLogprob(
        [
          { text: 'x', logprob: -1 },
          { text: '4', logprob: -0.5 },
          { text: '</s>', logprob: -9 },
        ],
        'x',
        '4',
      ),
    ).toBe(-0.5);
  });

  it('refuses, without retry, a prompt whose tokens do not spell the choice', () => {
    const err = (() => {
      try {
        choiceLogprob([{ text: '4', logprob: -1 }], 'abc', ' 3');
      } catch (e) {
        return e as { retryable: boolean; message: string };
      }
      return undefined;
    })();
    expect(err).toMatchObject({ retryable: false, message: expect.stringContaining('cannot locate the choice') });
  });
});
