import { describe, expect, it } from 'vitest';
import { abricot } from '#core/benchmarks/abricot.ts';
import { scoreLikert } from '#core/judging/likert-judge.ts';
import type { LikertTask } from '#core/types.ts';

const [task] = abricot.parseRow(
  { id: 'x1', target_token: 'mare', text: 'Il mare è calmo.', abs_mean: 0.45, inc_mean: 0.45 },
  { file: 'mem.jsonl', line: 1 },
) as LikertTask[];
const CHOICES = ['1', '2', '3', '4', '5'];

describe('scoreLikert', () => {
  it('predicts the choice with the highest log-likelihood', () => {
    const out = scoreLikert(task as LikertTask, { mode: 'likelihood', logprobs: [-5, -4, -0.2, -3, -6], choices: CHOICES });
    expect(out).toMatchObject({ predicted: 3, verdict: 'OK', mode: 'likelihood' });
  });

  it('prefers a measured next-token value over a floor it ties with, and records the floored choices', () => {
    const out = scoreLikert(task as LikertTask, { mode: 'next-token', logprobs: [-3, -3, -3, -3, -3], choices: CHOICES, floored: [0, 1, 3, 4], floor: -3 });
    expect(out).toMatchObject({ predicted: 3, mode: 'next-token', flooredChoices: [0, 1, 3, 4], floor: -3 });
  });

  it('predicts nothing, with the reason, when no choice was among the top next tokens', () => {
    const out = scoreLikert(task as LikertTask, { mode: 'next-token', logprobs: [-9, -9, -9, -9, -9], choices: CHOICES, floored: [0, 1, 2, 3, 4], floor: -9 });
    expect(out).toMatchObject({ predicted: null, verdict: 'WA', error: expect.stringContaining('top next-token') });
  });

  it('parses a digit strictly in digit-parse mode', () => {
    expect(scoreLikert(task as LikertTask, { mode: 'digit-parse', text: '3' })).toMatchObject({ predicted: 3, verdict: 'OK' });
    expect(scoreLikert(task as LikertTask, { mode: 'digit-parse', text: '3 perché' }).predicted).toBeNull();
  });
});
