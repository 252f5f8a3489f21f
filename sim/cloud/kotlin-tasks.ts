/**
 * Kotlin HumanEval-style tasks (MXEval's row format, the `unit-tests` scorer) for the cloud-scale
 * simulation: every task is "sumaListei" (the sum of a list), its test a `main` that checks two
 * calls; answers come from four completions, one per kind, so the simulated runner can tell by
 * the completion what the program does: OK, RE (the test's check throws), CE (an unresolved
 * call), TLE (a loop that never ends). Hand-written for this bench.
 */
import type { AnswerKind } from '../rocode-generator.ts';

/** What a Kotlin sample can end as in the simulation. */
export type KotlinKind = Extract<AnswerKind, 'OK' | 'RE' | 'TLE'> | 'CE';

const PROMPT = '/**\n * Întoarce suma elementelor listei.\n */\nfun sumaListei(xs: List<Int>): Int {\n';
const TEST =
  '\nfun main() {\n    if (sumaListei(listOf(1, 2, 3)) != 6) throw Exception("greșit")\n    if (sumaListei(listOf()) != 0) throw Exception("greșit")\n}\n';

/** The completion (function body and closing brace) a sample of each kind answers with. */
export const KOTLIN_COMPLETIONS: Record<KotlinKind, string> = {
  OK: '    return xs.sum()\n}\n',
  RE: '    return xs.sum() + 1\n}\n',
  CE: '    return xs.sumaTotala()\n}\n',
  TLE: '    var s = 0\n    while (s >= 0) s = (s + 1) % 7\n    return s\n}\n',
};

/** Which kind a (cleaned) completion is: the runner's way of "running" it. */
export function kotlinKindOf(completion: string): KotlinKind {
  if (completion.includes('sumaTotala')) return 'CE';
  if (completion.includes('while (s >= 0)')) return 'TLE';
  if (completion.includes('xs.sum() + 1')) return 'RE';
  return 'OK';
}

/** `tasks` MXEval rows (`HumanEval_kotlin/<i>`), one JSON line each. */
export function kotlinTaskRows(tasks: number): string[] {
  return Array.from({ length: tasks }, (_, i) =>
    JSON.stringify({
      task_id: `HumanEval_kotlin/${i}`,
      language: 'kotlin',
      prompt: PROMPT,
      entry_point: 'sumaListei',
      canonical_solution: KOTLIN_COMPLETIONS.OK,
      test: TEST,
      description: 'Suma elementelor unei liste',
    }),
  );
}
