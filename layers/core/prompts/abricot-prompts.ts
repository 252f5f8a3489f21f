/**
 * ABRICOT's Italian prompts, in the published forms:
 *
 * - **authors**: the first author's lm-eval task, as run for the paper
 *   (gpucce/lm-evaluation-harness, branch add_abricot, commit 4d8bb2d6, 2024-09-16,
 *   `lm_eval/tasks/abricot/utils.py`): the request line, the sentence on its own line,
 *   "Descrizione dei valori:", one line per value with the two "prola" typos, a final newline,
 *   no final full stop.
 * - **figure**: the text of the paper's Fig. 2 (CLiC-it 2024, CEUR Vol-3878, paper 128), as
 *   printed: running text (the figure's line ends are layout; words hyphenated across a line
 *   end, "De-scrizione", "lieve-mente", "ani-male", are joined), the target word and the
 *   sentence in place of the figure's placeholders "parola" and "frase", the two typos kept
 *   ("prola" at value 4 of the abstractness prompt and at value 2 of the inclusiveness
 *   prompt), and the final full stop only where the figure has one (abstractness).
 * - **calamita**: the CALAMITA task file (CALAMITA-AILC/lm-evaluation-harness
 *   `lm_eval/tasks/abricot/utils.py` at commit f067d8bb): the request line, the sentence on
 *   its own line, "Descrizione dei valori:", one line per value, a final newline; no typos.
 * - **harness**: the CALAMITA organisers' harness of record (CALAMITA-AILC/CALAMITA-harness
 *   commit 1167acce, 2024-11-12, unchanged through 2f7e3230; the same file in
 *   CALAMITA-AILC/calamita-eval 4471a174, `tasks/abricot/utils.py`): the fork's prompt, then a
 *   blank line and "Rispondi esclusivamente con il numero scelto senza aggiungere nessuna
 *   spiegazione" and a newline.
 *
 * Few-shot text follows lm-eval's layout for both: each solved example is its prompt, the
 * target delimiter " " and its gold digit; examples are joined, and followed, by a blank line.
 */
import type { LikertTask } from '../types.ts';

/** ABRICOT's subtasks: each row is judged on both scales, one task per subtask. */
export const ABRICOT_SUBTASKS = ['abstractness', 'inclusiveness'] as const;
export type AbricotSubtask = (typeof ABRICOT_SUBTASKS)[number];

interface Scale {
  noun: string;
  /** Value descriptions as the paper's figure prints them (typos included). */
  paper: string[];
  /** Value descriptions as the CALAMITA task file writes them. */
  calamita: string[];
  /** The figure's closing punctuation after value 5. */
  paperEnd: string;
}

const SCALES: Record<AbricotSubtask, Scale> = {
  abstractness: {
    noun: 'astrazione',
    paper: [
      'La parola è estremamente concreta (e.g. un cane specifico)',
      'La parola è lievemente concreta (e.g. un cane di una certa razza)',
      'La parola è neutra (e.g. un cane tra tanti)',
      'La prola è lievemente astratta (e.g. un cane è un animale da compagnia)',
      'La parola è estremamente astratta (e.g. il cane è un mammifero)',
    ],
    calamita: [
      'La parola è estremamente concreta (e.g. un cane specifico)',
      'La parola è lievemente concreta (e.g. un cane di una certa razza)',
      'La parola è neutra (e.g. un cane tra tanti)',
      'La parola è lievemente astratta (e.g. un cane è un animale da compagnia)',
      'La parola è estremamente astratta (e.g. il cane è un mammifero)',
    ],
    paperEnd: '.',
  },
  inclusiveness: {
    noun: 'inclusività',
    paper: [
      'La parola è estremamente specifica (e.g. un cane specifico)',
      'La prola è lievemente specifica (e.g. un cane di una certa razza)',
      'La parola è neutra (e.g. un cane tra tanti)',
      'La parola è lievemente inclusiva (e.g. un cane è un animale da compagnia)',
      'La parola è estremamente inclusiva (e.g. il cane è un mammifero)',
    ],
    calamita: [
      'La parola è estremamente specifica (e.g. un cane specifico)',
      'La parola è lievemente specifica (e.g. un cane di una certa razza)',
      'La parola è neutra (e.g. un cane tra tanti)',
      'La parola è lievemente inclusiva (e.g. un cane è un animale da compagnia)',
      'La parola è estremamente inclusiva (e.g. il cane è un mammifero)',
    ],
    paperEnd: '',
  },
};

type Item = Pick<LikertTask, 'subtask' | 'target' | 'text'>;

/** The scale of an ABRICOT subtask. @throws Error for a subtask ABRICOT does not have (a task of another benchmark). */
function scaleOf(subtask: string): Scale {
  if (!Object.hasOwn(SCALES, subtask)) throw new Error(`ABRICOT has no subtask "${subtask}" (its subtasks: ${Object.keys(SCALES).join(', ')})`);
  return SCALES[subtask as AbricotSubtask];
}

/** The paper's Fig. 2 prompt for one item (no answer). */
export function abricotPaperPrompt(task: Item): string {
  const scale = scaleOf(task.subtask);
  const values = scale.paper.map((d, i) => `${i + 1} - ${d}`).join(' ');
  return `Assegna un valore di ${scale.noun} da 1 a 5 alla parola ${task.target} nel contesto della frase seguente: ${task.text} Descrizione dei valori: ${values}${scale.paperEnd}`;
}

/** The request, the sentence and the values one per line, as lm-eval task files write them. */
function linedPrompt(task: Item, values: readonly string[]): string {
  const scale = scaleOf(task.subtask);
  const lines = values.map((d, i) => `${i + 1} - ${d}`).join('\n');
  return `Assegna un valore di ${scale.noun} da 1 a 5 alla parola ${task.target} nel contesto della frase seguente:\n${task.text}\nDescrizione dei valori:\n${lines}\n`;
}

/** The authors' lm-eval task prompt (the paper's values, typos kept, one per line; ends with a newline). */
export function abricotAuthorsPrompt(task: Item): string {
  return linedPrompt(task, scaleOf(task.subtask).paper);
}

/** The CALAMITA fork's task file prompt for one item (ends with a newline; a choice follows after " "). */
export function abricotCalamitaPrompt(task: Item): string {
  return linedPrompt(task, scaleOf(task.subtask).calamita);
}

/** The answer instruction the CALAMITA organisers' harness appends after a blank line. */
export const CALAMITA_ANSWER_LINE = 'Rispondi esclusivamente con il numero scelto senza aggiungere nessuna spiegazione';

/** The CALAMITA organisers' harness prompt: the fork's, a blank line, the answer instruction, a newline. */
export function abricotHarnessPrompt(task: Item): string {
  return `${abricotCalamitaPrompt(task)}\n${CALAMITA_ANSWER_LINE}\n`;
}

/** lm-eval's `target_delimiter` and `fewshot_delimiter` (lm_eval/api/task.py, TaskConfig defaults, v0.4). */
export const TARGET_DELIMITER = ' ';
export const FEWSHOT_DELIMITER = '\n\n';

/**
 * Raw text of a few-shot prompt as lm-eval's ContextSampler lays it out: solved examples
 * (prompt + " " + gold) joined by a blank line, a blank line, then the open item; the scored
 * choice is appended after " ". With no shots this is the item's prompt alone.
 */
export function fewShotText(prompt: (t: Item) => string, task: Item, shots: readonly (Item & { gold: number })[]): string {
  const solved = shots.map((s) => `${prompt(s)}${TARGET_DELIMITER}${s.gold}`);
  return solved.length === 0 ? prompt(task) : `${solved.join(FEWSHOT_DELIMITER)}${FEWSHOT_DELIMITER}${prompt(task)}`;
}
