/**
 * The language a RoCode run is in. `-m reference` validates the languages a dataset has
 * answers in: a file with Python answers only is one Python run, and a task without a C
 * answer is left out of the C run (the manifest says so) instead of failing the command.
 * A replay file whose lines say `"language": "c"` is a C run on the leaderboard.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson, runCli, tempHome } from '../support/cli.ts';

interface RunJson {
  run_id: string;
  items: number;
  verdicts: Record<string, number>;
}

function task(id: string, name: string, solutions: Record<string, string>): Record<string, unknown> {
  return {
    task_id: id,
    name,
    statement: 'Se dau două numere. Afișați suma lor.',
    input_spec: `Fișierul ${name}.in conține două numere.`,
    output_spec: `Fișierul ${name}.out conține suma.`,
    examples: [{ input: '1 2\n', output: '3\n' }],
    tests: [
      { input: '1 2\n', output: '3\n' },
      { input: '5 -5\n', output: '0\n' },
    ],
    difficulty: 'easy',
    split: 'test',
    checker: null,
    solutions,
  };
}

const PY = 'a, b = map(int, input().split())\nprint(a + b)\n';
const C = '#include <stdio.h>\nint main(void) { int a, b; scanf("%d %d", &a, &b); printf("%d\\n", a + b); return 0; }\n';

describe('reference on a file with answers in some languages', () => {
  it('Python answers only: one Python run, every task OK, exit 0', async () => {
    const home = tempHome();
    const file = join(home, 'py-only.jsonl');
    writeFileSync(file, [task('t/1', 'suma', { python: PY }), task('t/2', 'adun', { python: PY })].map((r) => JSON.stringify(r)).join('\n'));
    const result = await runCli(['run', '-b', `rocode:${file}`, '-m', 'reference', '--json', '-q', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const run = parseJson<RunJson>(result);
    expect(run.items).toBe(2);
    expect(run.verdicts).toEqual({ OK: 2 });
  });

  it('a task without a C answer is left out of the C run and named in its manifest', async () => {
    const home = tempHome();
    const file = join(home, 'mixed.jsonl');
    writeFileSync(file, [task('t/1', 'suma', { python: PY, c: C }), task('t/2', 'adun', { python: PY })].map((r) => JSON.stringify(r)).join('\n'));
    const result = await runCli(['run', '-b', `rocode:${file}`, '-m', 'reference', '--json', '-q', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const { runs } = parseJson<{ runs: RunJson[] }>(result);
    expect(runs.map((r) => [r.run_id.split('-')[1], r.items, r.verdicts])).toEqual([
      ['python', 2, { OK: 2 }],
      ['c', 1, { OK: 1 }],
    ]);
    const cRun = runs[1] as RunJson;
    const manifest = JSON.parse(readFileSync(join(home, 'store', 'runs', cRun.run_id, 'manifest.json'), 'utf8')) as { warnings: string[] };
    expect(manifest.warnings.join('\n')).toContain('1 task(s) without a reference answer in c left out: t/2');
  });
});

describe('replay lines that choose the language', () => {
  it('C answers without --language are ranked on the C board, not the Python one', async () => {
    const home = tempHome();
    const file = join(home, 'tasks.jsonl');
    writeFileSync(file, [task('t/1', 'suma', { python: PY, c: C }), task('t/2', 'adun', { python: PY, c: C })].map((r) => JSON.stringify(r)).join('\n'));
    const answers = join(home, 'c-answers.jsonl');
    writeFileSync(answers, ['t/1', 't/2'].map((id) => JSON.stringify({ task_id: id, completion: C, language: 'c' })).join('\n'));
    const result = await runCli(['run', '-b', `rocode:${file}`, '-m', `replay:${answers}`, '--trust-generated-code', '--json', '-q', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson<RunJson>(result).verdicts).toEqual({ OK: 2 });
    const board = parseJson<{ rows: { language: string | null; model: string }[] }>(await runCli(['leaderboard', '--format', 'json', '--home', home]));
    expect(board.rows.map((r) => [r.language, r.model])).toEqual([['c', `replay:${answers}`]]);
  });
});

describe('a benchmark without code', () => {
  it('ABRICOT run with --language python (as a sweep passes it to every cell) ranks on the one ABRICOT board', async () => {
    const home = tempHome();
    for (const extra of [[], ['--language', 'python']]) {
      const result = await runCli(['run', '-b', 'sample/abricot', '-m', 'reference', ...extra, '--json', '-q', '--home', home]);
      expect(result.code, result.stderr).toBe(0);
    }
    const board = parseJson<{ rows: { language: string | null; runs: number }[] }>(await runCli(['leaderboard', '--format', 'json', '--home', home]));
    expect(board.rows.map((r) => [r.language, r.runs])).toEqual([
      [null, 2],
      [null, 2],
    ]);
  });
});

describe('--language spelled as users write it', () => {
  it('--language C++ and --language cpp are one language: one board, run ids and manifests say cpp', async () => {
    const home = tempHome();
    const file = join(home, 'tasks.jsonl');
    const CPP = '#include <iostream>\nint main() { long long a, b; std::cin >> a >> b; std::cout << a + b << "\\n"; }\n';
    writeFileSync(file, JSON.stringify(task('t/1', 'suma', { python: PY, cpp: CPP })));
    for (const language of ['C++', 'cpp', 'Python3,C++']) {
      const result = await runCli(['run', '-b', `rocode:${file}`, '-m', 'reference', '--language', language, '--json', '-q', '--home', home]);
      expect(result.code, result.stderr).toBe(0);
    }
    const board = parseJson<{ rows: { language: string | null; runs: number }[] }>(await runCli(['leaderboard', '--format', 'json', '--home', home]));
    expect(board.rows.map((r) => [r.language, r.runs])).toEqual([
      ['cpp', 3],
      ['python', 1],
    ]);
  });
});
