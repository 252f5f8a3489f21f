/**
 * The RoCode paper's zero-shot Romanian prompt (§4.1): its opening line, the statement, the
 * input/output specification, the examples, then its closing line asking for the code in the
 * requested language without comments or explanations. The two fixed lines are the paper's,
 * as printed ("urmatoarea" without its diacritic included); the paper shows the three middle
 * parts only as placeholders, so their headings ("Date de intrare", "Exemplu", …) and the
 * blank lines between parts are ours.
 *
 * `en` is the paper's ablation (§4.4: problem definitions translated to English, accuracy
 * 1.81% → 1.26% for replit-code-v1-3b): the fixed lines and headings in English and the
 * statement from the row's English columns; the paper does not print its English prompt.
 */
import type { IoTestsTask, PromptLanguage } from '../types.ts';

/** Languages a RoCode prompt can ask for. */
export type RocodeLanguage = 'c' | 'cpp' | 'python';
/** Every language a RoCode prompt can ask for, the default first. */
export const ROCODE_LANGUAGES: readonly RocodeLanguage[] = ['python', 'c', 'cpp'];

/**
 * The languages of RoCode's human-written solutions: the students' C and C++ submissions
 * (paper §3.2); its Python solutions are gpt-3.5-turbo transpilations of them.
 */
export const ROCODE_HUMAN_LANGUAGES: readonly RocodeLanguage[] = ['c', 'cpp'];

/** The language named in the closing request, as the paper writes it ("Python3"). */
const LANGUAGE_NAMES: Record<RocodeLanguage, string> = { python: 'Python3', c: 'C', cpp: 'C++' };

/**
 * The paper's evaluation recipe: 10 samples per problem, temperature 0.2, top-p 0.9,
 * a 4 s time limit where a task gives none, Python 3 by default.
 */
export const ROCODE_RECIPE = {
  language: 'python' as RocodeLanguage,
  n: 10,
  temperature: 0.2,
  topP: 0.9,
  defaultTimeLimitMs: 4000,
} as const;

/** The opening line, verbatim in every RoCode prompt (the paper's spelling). */
export const ROCODE_OPENING = 'Se dă urmatoarea problemă de programare:';

/** The closing request for one language, e.g. "Codul în Python3 care rezolvă problema, …". */
export function rocodeRequest(language: RocodeLanguage, promptLanguage: PromptLanguage = 'ro'): string {
  return promptLanguage === 'en'
    ? `The code in ${LANGUAGE_NAMES[language]} that solves the problem, without comments or explanations, is:`
    : `Codul în ${LANGUAGE_NAMES[language]} care rezolvă problema, fără comentarii sau explicații, este:`;
}

/** The template's words in each prompt language. */
const WORDS: Record<PromptLanguage, { opening: string; input: string; output: string; example: string; examples: string; stdin: string; stdout: string }> = {
  ro: {
    opening: ROCODE_OPENING,
    input: 'Date de intrare',
    output: 'Date de ieșire',
    example: 'Exemplu',
    examples: 'Exemple',
    stdin: 'Intrare',
    stdout: 'Ieșire',
  },
  en: {
    opening: 'The following programming problem is given:',
    input: 'Input data',
    output: 'Output data',
    example: 'Example',
    examples: 'Examples',
    stdin: 'Input',
    stdout: 'Output',
  },
};

/**
 * Builds the zero-shot prompt for one task in one language.
 *
 * Sections are separated by blank lines; examples are shown infoarena-style under the file
 * names the program must use (`<nume>.in`, `<nume>.out`; "Intrare"/"Ieșire" for a stdin/stdout
 * task). Empty specifications are left out. In English, the statement and specifications are
 * the task's English ones (the caller checks they exist).
 *
 * @example
 * buildRocodePrompt(task, 'python').endsWith('fără comentarii sau explicații, este:') // true
 */
export function buildRocodePrompt(task: IoTestsTask, language: RocodeLanguage, promptLanguage: PromptLanguage = 'ro'): string {
  const w = WORDS[promptLanguage];
  const text = promptLanguage === 'en' && task.english ? task.english : task;
  const parts: string[] = [w.opening, text.statement.trim()];
  if (text.inputSpec.trim() !== '') parts.push(`${w.input}\n${text.inputSpec.trim()}`);
  if (text.outputSpec.trim() !== '') parts.push(`${w.output}\n${text.outputSpec.trim()}`);
  if (task.examples.length > 0) {
    const heading = task.examples.length === 1 ? w.example : w.examples;
    const shown = task.examples.map((ex, i) => {
      const label = task.examples.length === 1 ? '' : ` ${i + 1}`;
      // Without a file stem the program reads stdin and writes stdout: plain labels.
      const [inLabel, outLabel] = task.name !== undefined ? [`${task.name}.in`, `${task.name}.out`] : [w.stdin, w.stdout];
      return `${inLabel}${label}\n${ex.input.trimEnd()}\n${outLabel}${label}\n${ex.output.trimEnd()}`;
    });
    parts.push(`${heading}\n${shown.join('\n\n')}`);
  }
  parts.push(rocodeRequest(language, promptLanguage));
  return parts.join('\n\n');
}
