/**
 * The RoCode paper's zero-shot Romanian prompt (§4.1): "Se dă următoarea problemă de
 * programare:", the statement, the input/output specification, the examples, then one line
 * asking for the code in the requested language without comments or explanations. The
 * template text is ours; its structure and the closing request follow the paper.
 */
import type { IoTestsTask } from '../types.ts';

/** Languages a RoCode prompt can ask for. */
export type RocodeLanguage = 'c' | 'cpp' | 'python';
/** Every language a RoCode prompt can ask for, the default first. */
export const ROCODE_LANGUAGES: readonly RocodeLanguage[] = ['python', 'c', 'cpp'];

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

/** The opening line, verbatim in every RoCode prompt. */
export const ROCODE_OPENING = 'Se dă următoarea problemă de programare:';

/** The closing request for one language, e.g. "Codul în Python3 care rezolvă problema, …". */
export function rocodeRequest(language: RocodeLanguage): string {
  return `Codul în ${LANGUAGE_NAMES[language]} care rezolvă problema, fără comentarii sau explicații, este:`;
}

/**
 * Builds the zero-shot prompt for one task in one language.
 *
 * Sections are separated by blank lines; examples are shown infoarena-style under the file
 * names the program must use (`<nume>.in`, `<nume>.out`; "Intrare"/"Ieșire" for a stdin/stdout
 * task). Empty specifications are left out.
 *
 * @example
 * buildRocodePrompt(task, 'python').endsWith('fără comentarii sau explicații, este:') // true
 */
export function buildRocodePrompt(task: IoTestsTask, language: RocodeLanguage): string {
  const parts: string[] = [ROCODE_OPENING, task.statement.trim()];
  if (task.inputSpec.trim() !== '') parts.push(`Date de intrare\n${task.inputSpec.trim()}`);
  if (task.outputSpec.trim() !== '') parts.push(`Date de ieșire\n${task.outputSpec.trim()}`);
  if (task.examples.length > 0) {
    const heading = task.examples.length === 1 ? 'Exemplu' : 'Exemple';
    const shown = task.examples.map((ex, i) => {
      const label = task.examples.length === 1 ? '' : ` ${i + 1}`;
      // Without a file stem the program reads stdin and writes stdout: plain labels.
      const [inLabel, outLabel] = task.name !== undefined ? [`${task.name}.in`, `${task.name}.out`] : ['Intrare', 'Ieșire'];
      return `${inLabel}${label}\n${ex.input.trimEnd()}\n${outLabel}${label}\n${ex.output.trimEnd()}`;
    });
    parts.push(`${heading}\n${shown.join('\n\n')}`);
  }
  parts.push(rocodeRequest(language));
  return parts.join('\n\n');
}
