import { describe, expect, it } from 'vitest';
import { abricot, selectShots } from '#core/benchmarks/abricot.ts';
import { bindProtocol } from '#core/benchmarks/protocol.ts';
import { abricotCalamitaPrompt, abricotPaperPrompt } from '#core/prompts/abricot.ts';
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

const WORDS = ['cane', 'gatto', 'pane', 'treno', 'sedia', 'albero'];
function pool(): LikertTask[] {
  return WORDS.flatMap((w, i) =>
    [0, 1].flatMap((k) => abricot.parseRow({ id: `${w}${k}`, target_token: w, text: `Frase ${i}.${k} con ${w}.`, abs_mean: (i + k) / 12, inc_mean: 0.5 }, loc)),
  );
}

describe('ABRICOT paper prompts (Fig. 2)', () => {
  it('renders the abstractness prompt byte for byte as the figure prints it', () => {
    expect(abricotPaperPrompt(item)).toBe(FIG2_ABSTRACTNESS);
  });

  it('renders the inclusiveness prompt byte for byte as the figure prints it', () => {
    expect(abricotPaperPrompt({ ...item, subtask: 'inclusiveness' })).toBe(FIG2_INCLUSIVENESS);
  });

  it('sends three shots as chat turns and lm-eval flat text, never about the evaluated word', () => {
    const tasks = pool();
    const task = tasks.find((t) => t.id === 'abstractness/cane0') as LikertTask;
    const prompt = abricot.buildPrompt(task, { pool: tasks });
    const shots = selectShots(task, tasks);
    expect(shots).toHaveLength(3);
    expect(shots.every((s) => s.target !== 'cane')).toBe(true);
    expect(prompt.messages).toEqual([
      ...shots.flatMap((s) => [
        { role: 'user', content: abricotPaperPrompt(s) },
        { role: 'assistant', content: String(s.gold) },
      ]),
      { role: 'user', content: abricotPaperPrompt(task) },
    ]);
    expect(prompt.completion).toBe(`${shots.map((s) => `${abricotPaperPrompt(s)} ${s.gold}`).join('\n\n')}\n\n${abricotPaperPrompt(task)}`);
    expect(abricot.choiceDelimiter).toBe(' ');
  });

  it('renders the turns with the Llama 3.1 chat template when asked, choices following the header directly', () => {
    const tasks = pool();
    const bound = bindProtocol(abricot, { chatTemplate: 'llama-3.1', shots: 1 });
    const task = tasks.find((t) => t.id === 'inclusiveness/pane1') as LikertTask;
    const [shot] = selectShots(task, tasks, 1);
    const h = (role: string) => `<|start_header_id|>${role}<|end_header_id|>\n\n`;
    const expected =
      `${h('system')}Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n<|eot_id|>` +
      `${h('user')}${abricotPaperPrompt(shot as LikertTask)}<|eot_id|>${h('assistant')}${shot?.gold}<|eot_id|>` +
      `${h('user')}${abricotPaperPrompt(task)}<|eot_id|>${h('assistant')}`;
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
    expect(abricot.promptNotes?.('likelihood')[0]).toContain('no chat template applied');
    expect(bindProtocol(abricot, { chatTemplate: 'llama-3.1' }).promptNotes?.('likelihood')[0]).toContain('llama-3.1 chat template');
    expect(abricot.promptNotes?.('next-token')[0]).toContain("chat endpoints apply the served model's own chat template");
  });
});

describe('ABRICOT calamita prompts (CALAMITA task file f067d8bb)', () => {
  it('renders both subtasks byte for byte as the task file does', () => {
    expect(abricotCalamitaPrompt(item)).toBe(CALAMITA_ABSTRACTNESS);
    expect(abricotCalamitaPrompt({ ...item, subtask: 'inclusiveness' })).toBe(CALAMITA_INCLUSIVENESS);
  });

  it('is zero-shot by default and takes --shots as lm-eval --num_fewshot lays them out', () => {
    const tasks = pool();
    const task = tasks.find((t) => t.id === 'abstractness/treno0') as LikertTask;
    const zero = bindProtocol(abricot, { protocol: 'calamita' });
    expect(zero.buildPrompt(task, { pool: tasks }).completion).toBe(abricotCalamitaPrompt(task));
    const two = bindProtocol(abricot, { protocol: 'calamita', shots: 2 });
    const shots = selectShots(task, tasks, 2);
    expect(two.buildPrompt(task, { pool: tasks }).completion).toBe(
      `${shots.map((s) => `${abricotCalamitaPrompt(s)} ${s.gold}`).join('\n\n')}\n\n${abricotCalamitaPrompt(task)}`,
    );
    expect(two.protocol.overrides).toEqual({ shots: 2 });
  });

  it('names the task version it reproduces and the defects of the others', () => {
    const defects = bindProtocol(abricot, { protocol: 'calamita' }).protocol.settings.knownDefects?.join('\n') ?? '';
    expect(defects).toContain('f067d8bb');
    expect(defects).toContain('first 25 rows');
    expect(defects).toContain('"prola"');
  });

  it('refuses a chat template on the raw-text harness layout and a setting of another benchmark', () => {
    expect(() => bindProtocol(abricot, { protocol: 'calamita', chatTemplate: 'llama-3.1' })).toThrow(
      '--chat-template does not apply to abricot (protocol calamita)',
    );
    expect(() => bindProtocol(abricot, { promptLanguage: 'en' })).toThrow('--prompt-language does not apply to abricot');
  });
});
