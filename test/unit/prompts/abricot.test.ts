import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { abricot, selectShots } from '#core/benchmarks/abricot.ts';
import { bindProtocol } from '#core/benchmarks/protocol.ts';
import { abricotAuthorsPrompt, abricotCalamitaPrompt, abricotHarnessPrompt, abricotPaperPrompt } from '#core/prompts/abricot-prompts.ts';
import { CHAT_TEMPLATES } from '#core/prompts/chat-templates.ts';
import type { LikertTask } from '#core/types.ts';

const loc = { file: 'items.jsonl', line: 1 };
const item = { subtask: 'abstractness' as const, target: 'cane', text: 'Il cane dorme.' };

// The paper's Fig. 2, written out by hand from the figure: running text, hyphenation at line
// ends joined, the "prola" typos where the figure has them, the full stop only after (a).
const FIG2_ABSTRACTNESS =
  'Assegna un valore di astrazione da 1 a 5 alla parola cane nel contesto della frase seguente: Il cane dorme. Descrizione dei valori: ' +
  '1 - La parola è estremamente concreta (e.g. un cane specifico) 2 - La parola è lievemente concreta (e.g. un cane di una certa razza) ' +
  '3 - La parola è neutra (e.g. un cane tra tanti) 4 - La prola è lievemente astratta (e.g. un cane è un animale da compagnia) ' +
  '5 - La parola è estremamente astratta (e.g. il cane è un mammifero).';
const FIG2_INCLUSIVENESS =
  'Assegna un valore di inclusività da 1 a 5 alla parola cane nel contesto della frase seguente: Il cane dorme. Descrizione dei valori: ' +
  '1 - La parola è estremamente specifica (e.g. un cane specifico) 2 - La prola è lievemente specifica (e.g. un cane di una certa razza) ' +
  '3 - La parola è neutra (e.g. un cane tra tanti) 4 - La parola è lievemente inclusiva (e.g. un cane è un animale da compagnia) ' +
  '5 - La parola è estremamente inclusiva (e.g. il cane è un mammifero)';

// CALAMITA-AILC/lm-evaluation-harness lm_eval/tasks/abricot/utils.py at f067d8bb: the prompt
// template with {parola} and {frase} filled.
const CALAMITA_ABSTRACTNESS =
  'Assegna un valore di astrazione da 1 a 5 alla parola cane nel contesto della frase seguente:\nIl cane dorme.\nDescrizione dei valori:\n' +
  '1 - La parola è estremamente concreta (e.g. un cane specifico)\n2 - La parola è lievemente concreta (e.g. un cane di una certa razza)\n' +
  '3 - La parola è neutra (e.g. un cane tra tanti)\n4 - La parola è lievemente astratta (e.g. un cane è un animale da compagnia)\n' +
  '5 - La parola è estremamente astratta (e.g. il cane è un mammifero)\n';
const CALAMITA_INCLUSIVENESS =
  'Assegna un valore di inclusività da 1 a 5 alla parola cane nel contesto della frase seguente:\nIl cane dorme.\nDescrizione dei valori:\n' +
  '1 - La parola è estremamente specifica (e.g. un cane specifico)\n2 - La parola è lievemente specifica (e.g. un cane di una certa razza)\n' +
  '3 - La parola è neutra (e.g. un cane tra tanti)\n4 - La parola è lievemente inclusiva (e.g. un cane è un animale da compagnia)\n' +
  '5 - La parola è estremamente inclusiva (e.g. il cane è un mammifero)\n';

// The authors' task file, gpucce/lm-evaluation-harness commit 4d8bb2d6a0a246e51a4b4bddfd2e9d1666cbee09
// (branch add_abricot), lm_eval/tasks/abricot/utils.py, process_docs_abs / process_docs_inc:
// the prompt template with {parola} and {frase} filled — lines, a final newline, the "prola"
// typos at abstractness value 4 and inclusiveness value 2, no final full stop.
const AUTHORS_ABSTRACTNESS =
  'Assegna un valore di astrazione da 1 a 5 alla parola cane nel contesto della frase seguente:\nIl cane dorme.\nDescrizione dei valori:\n' +
  '1 - La parola è estremamente concreta (e.g. un cane specifico)\n2 - La parola è lievemente concreta (e.g. un cane di una certa razza)\n' +
  '3 - La parola è neutra (e.g. un cane tra tanti)\n4 - La prola è lievemente astratta (e.g. un cane è un animale da compagnia)\n' +
  '5 - La parola è estremamente astratta (e.g. il cane è un mammifero)\n';
const AUTHORS_INCLUSIVENESS =
  'Assegna un valore di inclusività da 1 a 5 alla parola cane nel contesto della frase seguente:\nIl cane dorme.\nDescrizione dei valori:\n' +
  '1 - La parola è estremamente specifica (e.g. un cane specifico)\n2 - La prola è lievemente specifica (e.g. un cane di una certa razza)\n' +
  '3 - La parola è neutra (e.g. un cane tra tanti)\n4 - La parola è lievemente inclusiva (e.g. un cane è un animale da compagnia)\n' +
  '5 - La parola è estremamente inclusiva (e.g. il cane è un mammifero)\n';

// CALAMITA-AILC/CALAMITA-harness commit 1167acceaec95c1a0d61865ba963cad8fd4493e6 (unchanged at
// 2f7e3230; the same file as CALAMITA-AILC/calamita-eval 4471a174 tasks/abricot/utils.py): the
// fork's template, then a blank line and the answer instruction, and a final newline.
const HARNESS_TAIL = '\nRispondi esclusivamente con il numero scelto senza aggiungere nessuna spiegazione\n';

const WORDS = ['cane', 'gatto', 'pane', 'treno', 'sedia', 'albero'];
function pool(): LikertTask[] {
  return WORDS.flatMap((w, i) =>
    [0, 1].flatMap((k) => abricot.parseRow({ id: `${w}${k}`, target_token: w, text: `Frase ${i}.${k} con ${w}.`, abs_mean: (i + k) / 12, inc_mean: 0.5 }, loc)),
  );
}

// lm-eval's draw for a 12-item subtask with fewshot_random_seed 1234 and 3 shots: per item i, in
// order, random.Random(1234).sample(docs, 4), i dropped, the first 3 kept. Obtained with CPython
// 3.11.7: r = random.Random(1234); [[x for x in r.sample(list(range(12)), 4) if x != i][:3] for i in range(12)]
const LM_EVAL_DRAW_1234 = [
  [7, 1, 10],
  [9, 0, 11],
  [5, 3, 0],
  [0, 5, 9],
  [9, 7, 2],
  [2, 1, 0],
  [7, 3, 1],
  [1, 9, 10],
  [9, 0, 4],
  [8, 1, 4],
  [5, 4, 3],
  [7, 8, 0],
];
// The same with random.Random(7), items 0..2: [[5, 2, 6], [8, 11, 5], [9, 0, 8]].
const LM_EVAL_DRAW_7 = [
  [5, 2, 6],
  [8, 11, 5],
  [9, 0, 8],
];

// The bundled sample/abricot/items.jsonl (26 rows, so CPython's sample() takes its selected-set
// branch, as on the real validation split), with gpucce/lm-evaluation-harness 4d8bb2d6
// lm_eval/api/samplers.py ContextSampler.get_context run as written on the rows in file order:
// one random.Random(1234), per doc `self.rnd.sample(self.docs, num_fewshot + 1)` then
// `[x for x in fewshotex if x != doc][:num_fewshot]` (items it003 and it016 draw themselves
// third, so their fourth draw is kept). Printed by CPython 3.11.7 with
//   rnd = random.Random(1234)
//   [[x["id"] for x in rnd.sample(rows, 4) if x != d][:3] for d in rows]
const SAMPLE_DRAW_1234 = [
  ['it025', 'it015', 'it004'],
  ['it003', 'it026', 'it019'],
  ['it022', 'it023', 'it004'],
  ['it025', 'it012', 'it008'],
  ['it001', 'it026', 'it012'],
  ['it020', 'it016', 'it015'],
  ['it003', 'it006', 'it023'],
  ['it001', 'it017', 'it016'],
  ['it003', 'it022', 'it018'],
  ['it003', 'it020', 'it022'],
  ['it019', 'it002', 'it009'],
  ['it003', 'it021', 'it010'],
  ['it012', 'it009', 'it008'],
  ['it007', 'it015', 'it017'],
  ['it001', 'it017', 'it003'],
  ['it005', 'it023', 'it022'],
  ['it013', 'it006', 'it002'],
  ['it019', 'it016', 'it006'],
  ['it018', 'it007', 'it005'],
  ['it012', 'it025', 'it004'],
  ['it005', 'it022', 'it010'],
  ['it002', 'it014', 'it009'],
  ['it026', 'it002', 'it006'],
  ['it005', 'it010', 'it025'],
  ['it002', 'it019', 'it013'],
  ['it012', 'it016', 'it011'],
];

function subtaskPool(tasks: LikertTask[], subtask: string): LikertTask[] {
  return tasks.filter((t) => t.subtask === subtask);
}

describe("ABRICOT paper protocol (the authors' lm-eval task)", () => {
  it("renders both subtasks byte for byte as the authors' task file does, typos and line ends included", () => {
    expect(abricotAuthorsPrompt(item)).toBe(AUTHORS_ABSTRACTNESS);
    expect(abricotAuthorsPrompt({ ...item, subtask: 'inclusiveness' })).toBe(AUTHORS_INCLUSIVENESS);
  });

  it("draws the shots lm-eval's sampler draws with seed 1234, excluding only the item itself", () => {
    const tasks = pool();
    for (const subtask of ['abstractness', 'inclusiveness']) {
      const same = subtaskPool(tasks, subtask);
      same.forEach((task, i) => {
        expect(selectShots(task, tasks).map((s) => same.indexOf(s))).toEqual(LM_EVAL_DRAW_1234[i]);
      });
    }
  });

  it('sends one text in lm-eval\'s few-shot layout (prompt, " ", gold digit, blank line), no chat template', () => {
    const tasks = pool();
    const same = subtaskPool(tasks, 'abstractness');
    const task = same[2] as LikertTask;
    const shots = (LM_EVAL_DRAW_1234[2] ?? []).map((i) => same[i] as LikertTask);
    const text = `${shots.map((s) => `${abricotAuthorsPrompt(s)} ${s.gold}\n\n`).join('')}${abricotAuthorsPrompt(task)}`;
    const prompt = abricot.buildPrompt(task, { pool: tasks });
    expect(prompt.completion).toBe(text);
    expect(prompt.messages).toEqual([{ role: 'user', content: text }]);
    expect(prompt.style).toBe('completion');
    expect(abricot.choiceDelimiter).toBe(' ');
    expect(abricot.protocol.settings).toMatchObject({ headline: 'pearson', gold: 'authors', shots: 3, shotSeed: 1234, chatTemplate: 'none' });
    expect(abricot.protocol.settings.source).toContain('gpucce/lm-evaluation-harness 4d8bb2d6a0a246e51a4b4bddfd2e9d1666cbee09');
  });

  it("draws, on the bundled 26-row sample (Python's selected-set branch), the examples lm-eval's sampler code draws", () => {
    const rows = readFileSync(new URL('../../../sample/abricot/items.jsonl', import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const tasks = rows.flatMap((r, i) => abricot.parseRow(r, { file: 'items.jsonl', line: i + 1 }));
    for (const subtask of ['abstractness', 'inclusiveness']) {
      const same = subtaskPool(tasks, subtask);
      expect(same.map((t) => selectShots(t, tasks).map((s) => s.itemId))).toEqual(SAMPLE_DRAW_1234);
    }
  });

  it('draws other shots with --shot-seed, recorded as an override', () => {
    const tasks = pool();
    const bound = bindProtocol(abricot, { shotSeed: 7 });
    const same = subtaskPool(tasks, 'inclusiveness');
    for (const [i, expected] of LM_EVAL_DRAW_7.entries()) {
      const task = same[i] as LikertTask;
      const shots = expected.map((j) => same[j] as LikertTask);
      expect(bound.buildPrompt(task, { pool: tasks }).completion).toBe(
        `${shots.map((s) => `${abricotAuthorsPrompt(s)} ${s.gold}\n\n`).join('')}${abricotAuthorsPrompt(task)}`,
      );
    }
    expect(bound.protocol.overrides).toEqual({ shot_seed: 7 });
  });

  it('renders the turns with the Llama 3.1 chat template when asked (which trims each turn), choices following the header directly', () => {
    const tasks = pool();
    const bound = bindProtocol(abricot, { chatTemplate: 'llama-3.1', shots: 1 });
    const task = tasks.find((t) => t.id === 'inclusiveness/pane1') as LikertTask;
    const [shot] = selectShots(task, tasks, 1);
    const h = (role: string) => `<|start_header_id|>${role}<|end_header_id|>\n\n`;
    const expected =
      `${h('system')}Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n<|eot_id|>` +
      `${h('user')}${abricotAuthorsPrompt(shot as LikertTask).trim()}<|eot_id|>${h('assistant')}${shot?.gold}<|eot_id|>` +
      `${h('user')}${abricotAuthorsPrompt(task).trim()}<|eot_id|>${h('assistant')}`;
    expect(bound.buildPrompt(task, { pool: tasks }).completion).toBe(expected);
    expect(bound.choiceDelimiter).toBe('');
    expect(bound.protocol.overrides).toEqual({ chat_template: 'llama-3.1', shots: 1 });
  });

  it('renders the turns with the Mistral 7B Instruct v0.2 template, without the BOS the server adds, each answer after one space like the scored choice', () => {
    const text = CHAT_TEMPLATES['mistral-instruct-v0.2'].render([
      { role: 'user', content: 'a' },
      { role: 'assistant', content: '2' },
      { role: 'user', content: 'b' },
    ]);
    expect(text).toBe('[INST] a [/INST] 2</s>[INST] b [/INST]');
    // The few-shot answer reads as the scored one does: "] 2" beside "] 4".
    const scored = `${text}${CHAT_TEMPLATES['mistral-instruct-v0.2'].choiceDelimiter}4`;
    expect(scored.match(/\] \d/g)).toEqual(['] 2', '] 4']);
  });

  it('records in the manifest notes whether a chat template shaped a likelihood prompt', () => {
    expect(abricot.promptNotes?.('likelihood')[0]).toContain('no chat template');
    expect(bindProtocol(abricot, { chatTemplate: 'llama-3.1' }).promptNotes?.('likelihood')[0]).toContain('llama-3.1 chat template');
    expect(abricot.promptNotes?.('next-token')[0]).toContain("chat endpoints apply the served model's own chat template");
  });

  it('shows every other item when the subtask has no more items than shots (where lm-eval would stop)', () => {
    const tasks = pool();
    const shots = selectShots(tasks[0] as LikertTask, tasks, 12);
    expect(shots).toHaveLength(11);
    expect(new Set(shots.map((s) => s.id)).size).toBe(11);
  });
});

describe('ABRICOT paper-figure protocol (Fig. 2 as typeset)', () => {
  it('renders the abstractness prompt byte for byte as the figure prints it', () => {
    expect(abricotPaperPrompt(item)).toBe(FIG2_ABSTRACTNESS);
  });

  it('renders the inclusiveness prompt byte for byte as the figure prints it', () => {
    expect(abricotPaperPrompt({ ...item, subtask: 'inclusiveness' })).toBe(FIG2_INCLUSIVENESS);
  });

  it("sends the figure's text with the authors' shots", () => {
    const tasks = pool();
    const same = subtaskPool(tasks, 'abstractness');
    const task = same[0] as LikertTask;
    const shots = (LM_EVAL_DRAW_1234[0] ?? []).map((i) => same[i] as LikertTask);
    const bound = bindProtocol(abricot, { protocol: 'paper-figure' });
    expect(bound.buildPrompt(task, { pool: tasks }).completion).toBe(
      `${shots.map((s) => `${abricotPaperPrompt(s)} ${s.gold}\n\n`).join('')}${abricotPaperPrompt(task)}`,
    );
  });
});

describe("ABRICOT calamita protocol (the organisers' harness of record)", () => {
  it("sends the harness prompt byte for byte: the fork's lines, a blank line, the answer instruction", () => {
    expect(abricotHarnessPrompt(item)).toBe(`${CALAMITA_ABSTRACTNESS}${HARNESS_TAIL}`);
    expect(abricotHarnessPrompt({ ...item, subtask: 'inclusiveness' })).toBe(`${CALAMITA_INCLUSIVENESS}${HARNESS_TAIL}`);
    const tasks = pool();
    const task = tasks.find((t) => t.id === 'abstractness/treno0') as LikertTask;
    const bound = bindProtocol(abricot, { protocol: 'calamita' });
    expect(bound.buildPrompt(task, { pool: tasks }).completion).toBe(abricotHarnessPrompt(task));
    expect(bound.protocol.settings).toMatchObject({ headline: 'pearson', gold: 'authors', shots: 0 });
    expect(bound.protocol.settings.source).toContain('CALAMITA-AILC/CALAMITA-harness 1167acce');
  });

  it('refuses a setting of another benchmark', () => {
    expect(() => bindProtocol(abricot, { promptLanguage: 'en' })).toThrow('--prompt-language does not apply to abricot');
  });
});

describe('ABRICOT calamita-fork protocol (CALAMITA task file f067d8bb)', () => {
  it('renders both subtasks byte for byte as the task file does', () => {
    expect(abricotCalamitaPrompt(item)).toBe(CALAMITA_ABSTRACTNESS);
    expect(abricotCalamitaPrompt({ ...item, subtask: 'inclusiveness' })).toBe(CALAMITA_INCLUSIVENESS);
  });

  it('is zero-shot by default and takes --shots as lm-eval --num_fewshot lays them out', () => {
    const tasks = pool();
    const task = tasks.find((t) => t.id === 'abstractness/treno0') as LikertTask;
    const zero = bindProtocol(abricot, { protocol: 'calamita-fork' });
    expect(zero.buildPrompt(task, { pool: tasks }).completion).toBe(abricotCalamitaPrompt(task));
    expect(zero.protocol.settings.headline).toBe('accuracy');
    const two = bindProtocol(abricot, { protocol: 'calamita-fork', shots: 2 });
    const shots = selectShots(task, tasks, 2);
    expect(two.buildPrompt(task, { pool: tasks }).completion).toBe(
      `${shots.map((s) => `${abricotCalamitaPrompt(s)} ${s.gold}`).join('\n\n')}\n\n${abricotCalamitaPrompt(task)}`,
    );
    expect(two.protocol.overrides).toEqual({ shots: 2 });
  });

  it('names the task version it reproduces and the defects of the others', () => {
    const defects = bindProtocol(abricot, { protocol: 'calamita-fork' }).protocol.settings.knownDefects?.join('\n') ?? '';
    expect(defects).toContain('f067d8bb');
    expect(defects).toContain('first 25 rows');
  });
});
