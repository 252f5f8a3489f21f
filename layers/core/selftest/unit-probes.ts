/**
 * The hostile probes that travel as MXEval rows (the `mxeval` benchmark, the unit-tests
 * judge): the io probes of the languages RoCode does not ask for (Kotlin, Java, JavaScript),
 * each program turned into the function `selftestProbe` that a test of probe-harness.ts runs
 * on `1 2`, and the early-exit completions of every language with their own tests. Each row's
 * prompt ends where the probe's body starts and its canonical solution is the rest, so the
 * `reference` model submits the probe through the deployed judge and runner like any answer.
 */
import { HarnessError } from '../errors.ts';
import { EARLY_EXIT, HOSTILE_CASES, type HostileCase, type HostileLanguage, type Probe } from './hostile-programs.ts';
import { JAVASCRIPT_PROBE_TEST, JAVA_PROBE_TEST, KOTLIN_PROBE_TEST, PROBE_FUNCTION } from './probe-harness.ts';

/** The languages whose io probes ride on MXEval rows (RoCode's rows take only Python, C and C++). */
export const UNIT_FORM_LANGUAGES = ['kotlin', 'java', 'javascript'] as const;
type UnitFormLanguage = (typeof UNIT_FORM_LANGUAGES)[number];

/**
 * io probes with no unit-tests form, and why. A unit test is part of the program it judges
 * (MXEval's design), so there is no expected output on disk for a probe to look for.
 */
export const NO_UNIT_FORM: Readonly<Record<string, string>> = {
  'reading the expected output': 'a unit-test program carries its test in its own source: no expected output exists outside it to find',
};

/** One MXEval row (the published columns) and the case it carries. */
export interface ProbeRow {
  case: HostileCase;
  row: { task_id: string; language: string; prompt: string; entry_point: string; canonical_solution: string; test: string; description: string };
}

/** Whether a case is sent as an MXEval row (its language's io probes that have a unit form, and every early exit). */
export function travelsAsUnitTest(c: HostileCase): boolean {
  if (c.scorer !== undefined) return true; // an early exit: a unit test already
  return (UNIT_FORM_LANGUAGES as readonly string[]).includes(c.language) && NO_UNIT_FORM[c.attack] === undefined;
}

/** Replaces the program's `main` header with the probe function's (the prompt); the rest is the body. */
function splitProgram(c: HostileCase, code: string): { prompt: string; body: string } {
  const language = c.language as UnitFormLanguage;
  const headers: Record<UnitFormLanguage, { from: string; to: string }> = {
    kotlin: { from: 'fun main() {\n', to: `fun ${PROBE_FUNCTION}() {\n` },
    java: {
      from: 'public class Main {\n    public static void main(String[] args) throws Exception {\n',
      to: `class SelftestProbe {\n    static void ${PROBE_FUNCTION}() throws Exception {\n`,
    },
    javascript: { from: '', to: `function ${PROBE_FUNCTION}() {\n` },
  };
  const { from, to } = headers[language];
  if (!code.startsWith(from)) throw new HarnessError(`the ${language} probe "${c.attack}" does not start as its language's probes do`);
  let body = code.slice(from.length);
  // Kotlin's cleaning recipe removes comments from every completion: the row leaves them out itself.
  if (language === 'kotlin') body = body.replace(/^\s*\/\/.*\n/gmu, '');
  if (language === 'javascript') body = `${body.replace(/\n$/u, '')}\n}\n`;
  return { prompt: to, body };
}

/** An early-exit completion split where the entry point's body opens (`{`, or Python's `:`). */
function splitEarlyExit(language: HostileLanguage): { prompt: string; body: string } {
  const code = EARLY_EXIT[language].completion;
  const at = code.indexOf('add(');
  const open = language === 'python' ? code.indexOf(':\n', at) + 2 : code.indexOf('{', at) + 1;
  return { prompt: code.slice(0, open), body: code.slice(open) };
}

const TESTS: Record<UnitFormLanguage, string> = { kotlin: KOTLIN_PROBE_TEST, java: JAVA_PROBE_TEST, javascript: JAVASCRIPT_PROBE_TEST };

/** The rows of one language's probes that travel as MXEval rows, task ids from `taskId`. */
export function unitProbeRows(language: HostileLanguage, probe: Probe, taskId: (attack: string) => string): ProbeRow[] {
  return HOSTILE_CASES.filter((c) => c.language === language && travelsAsUnitTest(c)).map((c) => {
    const early = c.scorer !== undefined;
    const { prompt, body } = early ? splitEarlyExit(language) : splitProgram(c, c.code(probe));
    return {
      case: c,
      row: {
        task_id: taskId(c.attack),
        language,
        prompt,
        entry_point: early ? 'add' : PROBE_FUNCTION,
        canonical_solution: body,
        test: early ? EARLY_EXIT[language].test : TESTS[language as UnitFormLanguage],
        description: `Self-test probe: ${c.attack}.`,
      },
    };
  });
}
