/**
 * Locating the prompt's tokens in a vLLM echo: `usage.completion_tokens` is 1 for an echo
 * with `max_tokens: 0` (vllm serving.py `request_output_to_completion_response` counts the
 * token the engine generates anyway), and must never be taken as tokens to strip.
 */
import { describe, expect, it } from 'vitest';
import { echoedTokens, type CompletionResponse } from '#providers/openai-wire.ts';
import { locateChoice } from '#providers/logprobs.ts';

const PROMPT = 'Risposta: 4';
/** vLLM's answer for Llama 3: BOS echoed, " " and "4" separate tokens, completion_tokens 1. */
const echo = (extra: { tokens?: string[]; logprobs?: (number | null)[]; text?: string; usage?: CompletionResponse['usage'] } = {}): CompletionResponse => {
  const tokens = extra.tokens ?? ['<|begin_of_text|>', 'R', 'is', 'posta', ':', ' ', '4'];
  return {
    choices: [
      {
        text: extra.text ?? PROMPT,
        finish_reason: 'length',
        logprobs: { tokens, token_logprobs: extra.logprobs ?? [null, -1, -1, -1, -1, -2, -0.5], text_offset: tokens.map((_, i) => i) },
      },
    ],
    usage: extra.usage ?? { prompt_tokens: tokens.length, completion_tokens: 1 },
  };
};

describe('echoedTokens', () => {
  it('keeps every token of an echo sent with max_tokens 0, whatever completion_tokens says', () => {
    const tokens = echoedTokens(echo(), { prompt: PROMPT, maxTokens: 0 });
    expect(tokens?.map((t) => t.text)).toEqual(['<|begin_of_text|>', 'R', 'is', 'posta', ':', ' ', '4']);
    expect(locateChoice(tokens ?? [], 'Risposta:', ' 4')).toMatchObject({ logprob: -2.5, by: 'bytes', tokens: [' ', '4'] });
  });

  it('with max_tokens 1 keeps the first usage.prompt_tokens tokens (the generated one follows)', () => {
    const body = echo({
      tokens: ['<|begin_of_text|>', 'R', 'is', 'posta', ':', ' ', '4', '\n'],
      logprobs: [null, -1, -1, -1, -1, -2, -0.5, -3],
      text: `${PROMPT}\n`,
      usage: { prompt_tokens: 7, completion_tokens: 1 },
    });
    expect(echoedTokens(body, { prompt: PROMPT, maxTokens: 1 })?.at(-1)?.text).toBe('4');
  });

  it('is undefined when the answer does not start with the prompt (no echo)', () => {
    expect(echoedTokens(echo({ text: 'ok' }), { prompt: PROMPT, maxTokens: 0 })).toBeUndefined();
  });
});

describe('locateChoice with per-id decoded SentencePiece tokens (leading spaces stripped)', () => {
  it('gives a lone "▁" decoded as "" the space before the digit', () => {
    const tokens = [
      { text: '<s>', logprob: null },
      { text: 'Ris', logprob: -1 },
      { text: 'post', logprob: -1 },
      { text: 'a', logprob: -1 },
      { text: ':', logprob: -1 },
      { text: '', logprob: -2 },
      { text: '4', logprob: -0.5 },
    ];
    expect(locateChoice(tokens, 'Risposta:', ' 4')).toMatchObject({ logprob: -2.5, by: 'bytes' });
  });

  it('puts back the space a "▁4" token lost when decoded alone', () => {
    const tokens = [
      { text: 'Risposta', logprob: -1 },
      { text: ':', logprob: -1 },
      { text: '4', logprob: -0.5 },
    ];
    expect(locateChoice(tokens, 'Risposta:', ' 4')).toMatchObject({ logprob: -0.5, by: 'bytes', tokens: ['4'] });
  });

  it('falls back to offsets, and says so, when the tokens do not spell the text', () => {
    const tokens = [
      { text: 'token_id:1', logprob: null, offset: 0 },
      { text: 'token_id:2', logprob: -1, offset: 10 },
      { text: 'token_id:3', logprob: -1, offset: 20 },
    ];
    expect(locateChoice(tokens, 'Da 1 a 5, risposta:', ' 4').by).toBe('offsets');
  });
});
