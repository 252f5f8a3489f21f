/**
 * ABRICOT's Italian prompts (CALAMITA): a value from 1 to 5 for the abstractness or the
 * inclusiveness of a word in context, with the five values described, asked 3-shot.
 */
import type { LikertSubtask, LikertTask } from '../types.ts';

const SCALE: Record<LikertSubtask, { noun: string; descriptions: string[] }> = {
  abstractness: {
    noun: 'astrazione',
    descriptions: [
      'La parola è estremamente concreta (e.g. un cane specifico)',
      'La parola è lievemente concreta (e.g. un cane di una certa razza)',
      'La parola è neutra (e.g. un cane tra tanti)',
      'La parola è lievemente astratta (e.g. un cane è un animale da compagnia)',
      'La parola è estremamente astratta (e.g. il cane è un mammifero)',
    ],
  },
  inclusiveness: {
    noun: 'inclusività',
    descriptions: [
      'La parola è estremamente specifica (e.g. un cane specifico)',
      'La parola è lievemente specifica (e.g. un cane di una certa razza)',
      'La parola è neutra (e.g. un cane tra tanti)',
      'La parola è lievemente inclusiva (e.g. un cane è un animale da compagnia)',
      'La parola è estremamente inclusiva (e.g. il cane è un mammifero)',
    ],
  },
};

/** The question for one item, without its answer. */
export function abricotQuestion(task: LikertTask): string {
  const scale = SCALE[task.subtask];
  const values = scale.descriptions.map((d, i) => `${i + 1} - ${d}`).join('\n');
  return (
    `Assegna un valore di ${scale.noun} da 1 a 5 alla parola "${task.target}" ` +
    `nel contesto della frase seguente: ${task.text}\n` +
    `Descrizione dei valori:\n${values}\n` +
    'Rispondi con un solo numero da 1 a 5.'
  );
}

/** The answer line that follows a question (shots end with the gold value; the item ends open). */
export const ANSWER_PREFIX = 'Valore:';

/** Few-shot text: solved shots, then the open item, ready for a choice to be appended. */
export function abricotFewShotText(task: LikertTask, shots: readonly LikertTask[]): string {
  const solved = shots.map((s) => `${abricotQuestion(s)}\n${ANSWER_PREFIX} ${s.gold}`);
  return [...solved, `${abricotQuestion(task)}\n${ANSWER_PREFIX}`].join('\n\n');
}

/**
 * The CALAMITA harness's zero-shot layout (lm_eval/tasks/abricot, read at commit f067d8bb):
 * the request with the target word bare, the sentence on its own line, the five value
 * descriptions, and a final newline; a choice is scored appended after one space.
 */
export function abricotCalamitaPrompt(task: LikertTask): string {
  const scale = SCALE[task.subtask];
  const values = scale.descriptions.map((d, i) => `${i + 1} - ${d}`).join('\n');
  return `Assegna un valore di ${scale.noun} da 1 a 5 alla parola ${task.target} nel contesto della frase seguente:\n${task.text}\nDescrizione dei valori:\n${values}\n`;
}
