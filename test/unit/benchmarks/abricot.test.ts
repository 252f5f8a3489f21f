import { describe, expect, it } from 'vitest';
import { abricot, discretise, selectShots } from '#core/benchmarks/abricot.ts';
import { parseLikertAnswer } from '#core/scoring/likert.ts';
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

describe('few-shot prompt', () => {
  const tasks = pool(20);

  it('draws three solved examples of the same subtask, never the item itself nor its word', () => {
    for (const task of tasks) {
      const shots = selectShots(task, tasks);
      expect(shots).toHaveLength(3);
      for (const s of shots) {
        expect(s.subtask).toBe(task.subtask);
        expect(s.itemId).not.toBe(task.itemId);
        expect(s.lemma).not.toBe(task.lemma);
      }
    }
  });

  it('chooses the same shots on every call (reproducible runs)', () => {
    const task = tasks[5] as LikertTask;
    expect(selectShots(task, tasks).map((t) => t.id)).toEqual(selectShots(task, [...tasks].reverse()).map((t) => t.id));
  });

  it('asks in Italian with the five value descriptions, shots answered with their gold', () => {
    const task = tasks[0] as LikertTask;
    const prompt = abricot.buildPrompt(task, { pool: tasks });
    const last = prompt.messages.at(-1)?.content ?? '';
    expect(last).toContain(
      `Assegna un valore di astrazione da 1 a 5 alla parola ${task.target} nel contesto della frase seguente: ${task.text} Descrizione dei valori:`,
    );
    expect(last).toContain('1 - La parola è estremamente concreta');
    expect(last).toContain('5 - La parola è estremamente astratta');
    expect(prompt.messages).toHaveLength(7);
    const shots = selectShots(task, tasks);
    expect(prompt.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual(shots.map((s) => String(s.gold)));
    expect(prompt.completion?.endsWith(last)).toBe(true);
    const inc = abricot.buildPrompt(tasks[1] as LikertTask, { pool: tasks });
    expect(inc.messages.at(-1)?.content).toContain('Assegna un valore di inclusività da 1 a 5');
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
