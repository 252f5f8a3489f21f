import { describe, expect, it } from 'vitest';
import { abricot, discretise, selectShots } from '#core/benchmarks/abricot.ts';
import { bindProtocol } from '#core/benchmarks/protocol.ts';
import { parseLikertAnswer } from '#core/judging/likert-judge.ts';
import { InputError } from '#core/errors.ts';
import type { LikertTask } from '#core/types.ts';

const loc = { file: 'items.jsonl', line: 7 };
const row = {
  id: 'x1',
  target_token: 'cane',
  target_lemma: 'cane',
  text: 'Il cane dorme.',
  begin: 3,
  end: 7,
  domain: 'subtitles',
  abs_mean: 0.2,
  abs_std: 0.1,
  inc_mean: 0.61,
  inc_std: 0.2,
};

function pool(count: number): LikertTask[] {
  return Array.from({ length: count }, (_, i) =>
    abricot.parseRow(
      {
        ...row,
        id: `p${i}`,
        target_token: `parola${i % 8}`,
        target_lemma: `parola${i % 8}`,
        text: `Frase ${i} con la parola${i % 8}.`,
        abs_mean: (i % 10) / 10,
        inc_mean: (i % 7) / 7,
      },
      loc,
    ),
  ).flat();
}

describe('ABRICOT rows', () => {
  it('turns one row into an abstractness and an inclusiveness task', () => {
    const tasks = abricot.parseRow(row, loc);
    expect(tasks.map((t) => t.id)).toEqual(['abstractness/x1', 'inclusiveness/x1']);
    expect(tasks[0]).toMatchObject({
      subtask: 'abstractness',
      goldMean: 0.2,
      gold: 2,
      target: 'cane',
      slices: { subtask: 'abstractness', domain: 'subtitles' },
    });
    expect(tasks[1]).toMatchObject({ subtask: 'inclusiveness', goldMean: 0.61, gold: 4 });
  });

  it('accepts the long column names and numbers written as text with a decimal comma', () => {
    const long = { ID: 'y', 'target token': 'gatto', text: 'Un gatto.', abstractness_mean: '0,5', inclusiveness_mean: '1' };
    const [a, i] = abricot.parseRow(long, loc);
    expect(a?.goldMean).toBe(0.5);
    expect(a?.gold).toBe(3);
    expect(i?.gold).toBe(5);
  });

  it.each([
    [{ ...row, abs_mean: 'alto' }, 'field "abs_mean"'],
    [{ ...row, inc_mean: 1.4 }, 'field "inc_mean": must be in [0, 1]'],
    [{ ...row, text: undefined }, 'field "text": is missing'],
    [{ ...row, id: undefined }, 'field "id": is missing'],
  ])('rejects a bad row naming file, line and field', (bad, message) => {
    expect(() => abricot.parseRow(bad as Record<string, unknown>, loc)).toThrow(InputError);
    expect(() => abricot.parseRow(bad as Record<string, unknown>, loc)).toThrow(`items.jsonl, line 7, ${message}`);
  });
});

describe('gold discretisation', () => {
  it.each([
    [0, 1],
    [0.19999, 1],
    [0.2, 2],
    [0.5, 3],
    [0.79, 4],
    [0.8, 5],
    [0.999, 5],
    [1, 5],
  ])('maps the human mean %f to %i', (mean, gold) => {
    expect(discretise(mean)).toBe(gold);
  });
});

describe("the authors' gold digit (paper protocol, the default)", () => {
  // gpucce/lm-evaluation-harness commit 4d8bb2d6a0a246e51a4b4bddfd2e9d1666cbee09 (branch
  // add_abricot), lm_eval/tasks/abricot/utils.py, process_docs_abs (process_docs_inc alike):
  //     doc["abs"] = round(5 * doc["abs_mean"])
  //     if doc["abs"] == 5:
  //         doc["abs"] = 4
  //     doc["label"] = doc["abs"]
  //     doc["choices"] = ["1", "2", "3", "4", "5"]
  // so the gold digit is choices[label] = label + 1, with Python 3's round (ties to even).
  // Expected digits computed with CPython 3.11.7: [min(4, round(5 * m)) + 1 for m in means].
  it.each([
    // mean, 5·mean, authors' digit, equal-bins digit
    [0, 0, 1, 1],
    [0.1, 0.5, 1, 1], // round(0.5) = 0
    [0.14, 0.7000000000000001, 2, 1],
    [0.2, 1, 2, 2],
    [0.3, 1.5, 3, 2], // round(1.5) = 2
    [0.34, 1.7000000000000002, 3, 2],
    [0.5, 2.5, 3, 3], // round(2.5) = 2
    [0.54, 2.7, 4, 3],
    [0.7, 3.5, 5, 4], // round(3.5) = 4
    [0.74, 3.7, 5, 4],
    [0.9, 4.5, 5, 5], // round(4.5) = 4
    [0.94, 4.699999999999999, 5, 5],
    [1, 5, 5, 5], // round(5) = 5, lowered to 4
  ])('gives mean %f (5·mean = %f) the digit %i, and %i with --gold equal-bins', (mean, fiveTimes, authors, bins) => {
    expect(5 * mean).toBe(fiveTimes);
    const [abs, inc] = abricot.parseRow({ ...row, abs_mean: mean, inc_mean: mean }, loc);
    expect([abs?.gold, inc?.gold]).toEqual([authors, authors]);
    const [binned] = bindProtocol(abricot, { gold: 'equal-bins' }).parseRow({ ...row, abs_mean: mean }, loc);
    expect(binned?.gold).toBe(bins);
  });

  // The adjacent doubles of each tie: Python rounds the exact product 5 * mean (one double
  // multiplication), not a decimal reading of it, so 0.10000000000000002 (5·mean just above 0.5)
  // gets 2 where 0.1 gets 1. Digits printed by CPython 3.11.7:
  //   import math
  //   for t in (0.5, 1.5, 2.5, 3.5, 4.5):
  //       for m in (math.nextafter(t/5, 0), t/5, math.nextafter(t/5, 1)):
  //           print(repr(m), repr(5*m), min(4, round(5*m)) + 1)
  it.each([
    [0.09999999999999999, 0.49999999999999994, 1],
    [0.10000000000000002, 0.5000000000000001, 2],
    [0.29999999999999993, 1.4999999999999996, 2],
    [0.30000000000000004, 1.5000000000000002, 3],
    [0.49999999999999994, 2.4999999999999996, 3],
    [0.5000000000000001, 2.5000000000000004, 4],
    [0.6999999999999998, 3.499999999999999, 4],
    [0.7000000000000001, 3.5000000000000004, 5],
    [0.8999999999999999, 4.5, 5], // the product rounds to the tie itself
    [0.9000000000000001, 4.500000000000001, 5],
  ])('gives mean %s next to a tie (5·mean = %s) the digit %i, as Python rounds the double', (mean, fiveTimes, authors) => {
    expect(5 * mean).toBe(fiveTimes);
    const [abs] = abricot.parseRow({ ...row, abs_mean: mean }, loc);
    expect(abs?.gold).toBe(authors);
  });
});

describe('few-shot prompt', () => {
  const tasks = pool(20);

  it('draws three solved examples of the same subtask, never the item itself', () => {
    for (const task of tasks) {
      const shots = selectShots(task, tasks);
      expect(shots).toHaveLength(3);
      for (const s of shots) {
        expect(s.subtask).toBe(task.subtask);
        expect(s.itemId).not.toBe(task.itemId);
      }
    }
  });

  it('chooses the same shots on every call (reproducible runs)', () => {
    const task = tasks[5] as LikertTask;
    expect(selectShots(task, tasks).map((t) => t.id)).toEqual(selectShots(task, [...tasks]).map((t) => t.id));
  });

  it('asks in Italian with the five value descriptions, shots answered with their gold', () => {
    const task = tasks[0] as LikertTask;
    const prompt = abricot.buildPrompt(task, { pool: tasks });
    const text = prompt.completion ?? '';
    expect(text).toContain(
      `Assegna un valore di astrazione da 1 a 5 alla parola ${task.target} nel contesto della frase seguente:\n${task.text}\nDescrizione dei valori:\n`,
    );
    expect(text).toContain('1 - La parola è estremamente concreta');
    expect(text).toContain('5 - La parola è estremamente astratta');
    const shots = selectShots(task, tasks);
    expect(
      text
        .split('\n\n')
        .slice(0, 3)
        .map((part) => part.slice(-1)),
    ).toEqual(shots.map((s) => String(s.gold)));
    const inc = abricot.buildPrompt(tasks[1] as LikertTask, { pool: tasks });
    expect(inc.completion).toContain('Assegna un valore di inclusività da 1 a 5');
  });
});

describe('digit parsing', () => {
  it.each([
    ['3', 3],
    [' 5\n', 5],
    ['Valore: 2', 2],
    ['**4**', 4],
    ['1.', 1],
  ])('reads %j as %i', (text, value) => {
    expect(parseLikertAnswer(text)).toBe(value);
  });

  it.each(['', '6', '0', '3 o 4', 'tre', 'Il valore è 3 perché la parola è neutra', '2.5'])('treats %j as unparseable', (text) => {
    expect(parseLikertAnswer(text)).toBeNull();
  });
});
