/**
 * `gguf:` against a real inference engine: llama.cpp (node-llama-cpp 3.21.1's CPU build) on
 * tiny Llama-architecture models written by sim/gguf-writer.ts with the real Llama 3,
 * Mistral (SentencePiece) and Qwen 3 vocabularies. polyeval's scores are checked against
 * llama.cpp's own per-token probabilities, computed here independently: each choice evaluated
 * from scratch in a fresh sequence, no state shared with polyeval's provider.
 */
import { getLlama, type Llama, type LlamaModel, type Token } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '#core/errors.ts';
import type { Provider } from '#core/models/provider.ts';
import { createProvider } from '#app/shared/create-provider.ts';
import { tinyLlamaModelPath, vocabularyTokens, type VocabName } from '../../../sim/gguf-writer.ts';

const CONTEXT = 'Frase: "Il gatto dorme sul divano."\nParola: gatto\nQuanto è astratta la parola, da 1 a 5?\nRisposta:';
const CHOICES = [' 1', ' 2', ' 3', ' 4', ' 5'];

let llama: Llama;
beforeAll(async () => {
  llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' as never, progressLogs: false });
});
afterAll(async () => {
  await llama.dispose();
});

/** The text's tokens as llama.cpp's own tokenizer gives them, BOS first when the file asks for it. */
function tokens(model: LlamaModel, text: string): Token[] {
  const t = model.tokenize(text, true);
  return model.tokens.bos !== null && model.tokens.shouldPrependBosToken ? [model.tokens.bos, ...t] : t;
}

/** log P(choice | context): the whole text evaluated in a fresh sequence, the choice's tokens' probabilities summed. */
async function independentLogprob(model: LlamaModel, context: string, choice: string): Promise<{ logprob: number; ids: Token[] }> {
  const ctxTokens = tokens(model, context);
  const full = tokens(model, context + choice);
  let start = 0;
  while (start < ctxTokens.length && full[start] === ctxTokens[start]) start++;
  const llamaContext = await model.createContext({ contextSize: 512 });
  try {
    // Distributions only where a choice token is predicted (every position would be slow, not different).
    const out = await llamaContext.getSequence().controlledEvaluate(full.map((t, i) => (i >= start - 1 ? [t, { generateNext: { probabilities: true } }] : t)));
    let logprob = 0;
    for (let j = start; j < full.length; j++) logprob += Math.log(out[j - 1]?.next.probabilities?.get(full[j] as Token) ?? 0);
    return { logprob, ids: full.slice(start) };
  } finally {
    await llamaContext.dispose();
  }
}

const NEXT_TOKEN = { mode: 'next-token' as const, method: 'gguf', reason: 'test' };

/**
 * Each digit's next-token probability after `prompt`, from llama.cpp's distributions: P(d) +
 * P(" d") at the end of the prompt, plus P(ws)·P(d | ws) when the most likely token there is
 * whitespace only (`whitespaceRead`).
 */
async function independentNextToken(model: LlamaModel, prompt: string): Promise<{ probability: number[]; whitespaceRead: boolean }> {
  const ctx = await model.createContext({ contextSize: 512 });
  try {
    const seq = ctx.getSequence();
    const prefix = tokens(model, prompt);
    const out = await seq.controlledEvaluate(prefix.map((t, i) => (i === prefix.length - 1 ? [t, { generateNext: { probabilities: true } }] : t)));
    const first = out[prefix.length - 1]?.next.probabilities ?? new Map<Token, number>();
    const [topToken, topP] = first.entries().next().value ?? [-1 as Token, 0];
    const after =
      model.detokenize([topToken]).trim() === ''
        ? (await seq.controlledEvaluate([[topToken, { generateNext: { probabilities: true } }]]))[0]?.next.probabilities
        : undefined;
    const single = (text: string): Token | undefined => {
      const t = model.tokenize(text, false, 'trimLeadingSpace');
      return t.length === 1 ? t[0] : undefined;
    };
    const probability = ['1', '2', '3', '4', '5'].map((d) => {
      const t = single(d);
      const s = single(` ${d}`);
      return (
        (t === undefined ? 0 : (first.get(t) ?? 0)) + (s === undefined ? 0 : (first.get(s) ?? 0)) + (after && t !== undefined ? topP * (after.get(t) ?? 0) : 0)
      );
    });
    return { probability, whitespaceRead: after !== undefined };
  } finally {
    await ctx.dispose();
  }
}

describe.each<VocabName>(['mistral', 'llama3', 'qwen3'])('gguf: with the %s vocabulary', (vocab) => {
  let path: string;
  let provider: Provider;
  let model: LlamaModel;
  beforeAll(async () => {
    path = tinyLlamaModelPath({ vocab });
    provider = await createProvider(`gguf:${path}`, { concurrency: 2 });
    model = await llama.loadModel({ modelPath: path });
  }, 120_000);
  afterAll(async () => {
    await provider.close?.();
    await model.dispose();
  });

  it("scores each choice with the sum of llama.cpp's own log-probabilities of its tokens", async () => {
    const scores = await provider.scoreChoices!({ taskId: 't', prompt: { style: 'completion', messages: [], completion: CONTEXT }, choices: CHOICES });
    const expected = await Promise.all(CHOICES.map((c) => independentLogprob(model, CONTEXT, c)));
    expect(scores.logprobs).toHaveLength(5);
    scores.logprobs.forEach((lp, i) => expect(Math.abs(lp - (expected[i]?.logprob ?? NaN))).toBeLessThan(1e-4));
    // lm-evaluation-harness's continuation (`_encode_pair`): the whole text's tokens past as many
    // as the context has. Here the context's tokens are a prefix of the whole text's, so the
    // common-prefix rule gives the same tokens.
    const contextLength = tokens(model, CONTEXT).length;
    CHOICES.forEach((c, i) => expect(expected[i]?.ids).toEqual(tokens(model, CONTEXT + c).slice(contextLength)));
    // The choices differ, so a context state leaking from one choice to the next would show.
    expect(new Set(scores.logprobs.map((l) => l.toFixed(6))).size).toBe(5);
    expect(scores.usage.promptTokens).toBeGreaterThan(10);
  });

  it('reads the choice whose digit the model finds most likely in next-token mode', async () => {
    const prompt = { style: 'completion' as const, messages: [], completion: CONTEXT };
    const scores = await provider.scoreChoices!({ taskId: 't', prompt, choices: CHOICES, scoring: NEXT_TOKEN });
    const { probability } = await independentNextToken(model, CONTEXT);
    expect(scores.logprobs.indexOf(Math.max(...scores.logprobs))).toBe(probability.indexOf(Math.max(...probability)));
    scores.logprobs.forEach((lp, i) => expect(Math.abs(lp - Math.log(probability[i] ?? 0))).toBeLessThan(1e-4));
  });

  it('samples reproducibly with a seed, within the token limit, cut at the stop string', async () => {
    const params = { temperature: 0.8, topP: 0.9, maxTokens: 12, stop: ['\n'], seed: 7 };
    const req = { taskId: 't', sample: 0, prompt: { style: 'completion' as const, messages: [], completion: CONTEXT }, params };
    const a = await provider.generate(req);
    const b = await provider.generate(req);
    expect(a.text).toBe(b.text);
    expect(a.text).not.toContain('\n');
    expect(a.usage.completionTokens).toBeGreaterThan(0);
    expect(a.usage.completionTokens).toBeLessThanOrEqual(12);
    expect(a.usage.promptTokens).toBe(tokens(model, CONTEXT).length);
  });

  it('records the file: SHA-256, architecture, quantisation, context size and chat template', () => {
    expect(provider.details).toMatchObject({ architecture: 'llama', quantisation: 'ALL_F32', sequences: 2 });
    expect(String(provider.details?.sha256)).toMatch(/^[0-9a-f]{64}$/);
    expect(provider.details?.chat_template).toEqual(expect.any(String));
    expect(Number(provider.details?.context_size)).toBeGreaterThan(0);
  });
});

describe('gguf: leading space with SentencePiece', () => {
  it('reads the position after a whitespace token the model puts first in next-token mode', async () => {
    // A stronger embedding makes tokens predict themselves: after the trailing "▁" of
    // "Risposta: " the most likely next token is "▁" again, and the digit comes after it.
    const path = tinyLlamaModelPath({ vocab: 'mistral', embeddingScale: 0.35 });
    const provider = await createProvider(`gguf:${path}`);
    const model = await llama.loadModel({ modelPath: path });
    try {
      const prompt = `${CONTEXT} `;
      const expected = await independentNextToken(model, prompt);
      expect(expected.whitespaceRead).toBe(true);
      const scores = await provider.scoreChoices!({
        taskId: 't',
        prompt: { style: 'completion', messages: [], completion: prompt },
        choices: CHOICES,
        scoring: NEXT_TOKEN,
      });
      scores.logprobs.forEach((lp, i) => expect(Math.abs(lp - Math.log(expected.probability[i] ?? 0))).toBeLessThan(1e-4));
      expect(scores.logprobs.indexOf(Math.max(...scores.logprobs))).toBe(expected.probability.indexOf(Math.max(...expected.probability)));
    } finally {
      await provider.close?.();
      await model.dispose();
    }
  });

  it('counts the separate "▁" token before the digit as part of the choice', async () => {
    const model = await llama.loadModel({ modelPath: tinyLlamaModelPath({ vocab: 'mistral' }) });
    try {
      const { ids } = await independentLogprob(model, CONTEXT, ' 3');
      // Mistral's vocabulary splits digits: " 3" after "Risposta:" is "▁" then "3".
      const vocabulary = vocabularyTokens('mistral');
      expect(ids.map((id) => vocabulary[id])).toEqual(['▁', '3']);
    } finally {
      await model.dispose();
    }
  });
});

describe('gguf: a prompt longer than the context', () => {
  it('is refused, naming the sizes and #ctx, not scored or continued without its beginning', async () => {
    // node-llama-cpp's default context shift would erase the sequence's first tokens and go on.
    const provider = await createProvider(`gguf:${tinyLlamaModelPath({ vocab: 'mistral' })}#ctx=256`);
    try {
      const completion = `${'Parola: gatto. '.repeat(60)}${CONTEXT}`;
      const prompt = { style: 'completion' as const, messages: [], completion };
      await expect(provider.scoreChoices!({ taskId: 't', prompt, choices: CHOICES })).rejects.toThrow(
        /the prompt with its longest choice is \d+ tokens, more than the 256-token context .*#ctx=<tokens> \(this model was trained on 2048\)/,
      );
      await expect(provider.scoreChoices!({ taskId: 't', prompt, choices: CHOICES, scoring: NEXT_TOKEN })).rejects.toThrow(/more than the 256-token context/);
      const params = { temperature: 0, topP: 1, maxTokens: 4, stop: [] };
      await expect(provider.generate({ taskId: 't', sample: 0, prompt, params })).rejects.toThrow(/more than the 256-token context/);
      // What fits is still scored.
      const fits = await provider.scoreChoices!({ taskId: 't', prompt: { style: 'completion', messages: [], completion: CONTEXT }, choices: CHOICES });
      expect(fits.logprobs.every(Number.isFinite)).toBe(true);
    } finally {
      await provider.close?.();
    }
  });
});

describe('gguf: bad specs', () => {
  it('names the missing file', async () => {
    await expect(createProvider('gguf:/nonexistent/model.gguf')).rejects.toThrow(InputError);
    await expect(createProvider('gguf:/nonexistent/model.gguf')).rejects.toThrow(/no such file: \/nonexistent\/model\.gguf/);
  });

  it('names an unknown option', async () => {
    await expect(createProvider('gguf:x.gguf#temperature=1')).rejects.toThrow(/unknown option "temperature=1"/);
  });
});
