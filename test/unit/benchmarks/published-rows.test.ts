/**
 * Rows as published datasets really are: Kotlin HumanEval's `canonical_solution` is a
 * `sequence: string` column on the Hub (JetBrains/Kotlin_HumanEval card, main branch), RoCode
 * rows may name their files only in the statement; a renamed column or a changed type is an
 * InputError naming file, line and field — never a crash.
 */
import { describe, expect, it } from 'vitest';
import { kotlinHumanEval, mxeval } from '#core/benchmarks/mxeval.ts';
import { rocode } from '#core/benchmarks/rocode.ts';
import { InputError } from '#core/errors.ts';
import { referenceProvider } from '#core/models/reference.ts';
import { planRun } from '#core/run/plan.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import type { IoTestsTask, UnitTestsTask } from '#core/types.ts';

const loc = { file: 'train-00000-of-00001.parquet', line: 4 };
const kotlinRow = {
  task_id: 'HumanEval_kotlin/7',
  language: 'kotlin',
  prompt: '/** Doubles n. */\nfun dublu(n: Int): Int {\n',
  entry_point: 'dublu',
  test: 'fun main() { if (dublu(2) != 4) throw Exception("x") }\n',
  description: 'Doubles n.',
};
const rocodeRow = { task_id: 'ro/9', statement: 'Afișați suma.', tests: [{ input: '1 2\n', output: '3\n' }] };

describe('MXEval rows with canonical_solution as a list', () => {
  it('keeps every element as one reference answer and the reference model answers sample i with element i', async () => {
    const row = { ...kotlinRow, canonical_solution: ['    return n * 2\n}\n', '    return n + n\n}\n'] };
    const [task] = kotlinHumanEval.parseRow(row, loc) as UnitTestsTask[];
    if (!task) throw new Error('no task');
    expect(task.canonicalSolution).toBe('    return n * 2\n}\n');
    expect(kotlinHumanEval.referenceCount?.(task)).toBe(2);
    expect([0, 1, 2].map((s) => kotlinHumanEval.reference(task, 'kotlin', s))).toEqual([
      '    return n * 2\n}\n',
      '    return n + n\n}\n',
      '    return n * 2\n}\n',
    ]);
    const plan = await planRun(
      { benchmark: kotlinHumanEval, tasks: [task], spec: 'kotlin-humaneval:x', source: 'x', sha256: 'x' },
      parseRunSpec({ benchmark: 'kotlin-humaneval:x', model: 'reference' }),
      referenceProvider(),
      {
        runId: 'r',
        createdAt: '2026-11-30T00:00:00Z',
        code: { version: '0', revision: null, dirty: null },
        packages: {},
        toolchains: [],
      },
    );
    expect(plan.items.map((i) => i.sample)).toEqual([0, 1]);
  });

  it('reads a one-element list and a plain string alike', () => {
    const [fromList] = mxeval.parseRow({ ...kotlinRow, canonical_solution: ['    return 2 * n\n}\n'] }, loc) as UnitTestsTask[];
    const [fromString] = mxeval.parseRow({ ...kotlinRow, canonical_solution: '    return 2 * n\n}\n' }, loc) as UnitTestsTask[];
    expect(fromList?.canonicalSolution).toBe(fromString?.canonicalSolution);
    expect(mxeval.referenceCount?.(fromList as UnitTestsTask)).toBe(1);
  });

  it.each([
    [{ ...kotlinRow, canonical_solution: 42 }, 'field "canonical_solution": must be a string or a list of strings, got number'],
    [{ ...kotlinRow, canonical_solution: ['ok', { code: 'x' }] }, 'field "canonical_solution[1]": must be a string, got an object'],
    [{ ...kotlinRow, prompt: ['fun a() {'] }, 'field "prompt": must be a string, got a list of 1'],
    [{ ...kotlinRow, test: { main: 'x' } }, 'field "test": must be a string, got an object'],
    [{ ...kotlinRow, entry_point: undefined, entrypoint: 'dublu' }, 'field "entry_point": is missing'],
    [{ ...kotlinRow, language: 'rust' }, 'field "language": names no language polyeval runs: "rust" (languages: python, c, cpp, kotlin, java, javascript)'],
  ])('rejects a renamed column or a changed type naming file, row and field', (row, message) => {
    expect(() => kotlinHumanEval.parseRow(row as Record<string, unknown>, loc)).toThrow(InputError);
    expect(() => kotlinHumanEval.parseRow(row as Record<string, unknown>, loc)).toThrow(`train-00000-of-00001.parquet, line 4, ${message}`);
  });
});

describe('RoCode file stems', () => {
  const stemOf = (row: Record<string, unknown>): string | undefined => (rocode.parseRow(row, loc)[0] as IoTestsTask).name;

  it('takes an explicit field first', () => {
    expect(stemOf({ ...rocodeRow, name: 'suma', input_spec: 'Fișierul adunare.in conține…' })).toBe('suma');
    expect(stemOf({ ...rocodeRow, file_name: 'suma.in' })).toBe('suma');
  });

  it('else the <stem>.in the input specification or statement names', () => {
    expect(stemOf({ ...rocodeRow, input_spec: 'Fișierul de intrare adunare.in conține două numere.' })).toBe('adunare');
    expect(stemOf({ ...rocodeRow, statement: 'Citiți din fișierul sum2.in două numere și scrieți suma în sum2.out.' })).toBe('sum2');
  });

  it('else none: the program reads stdin and writes stdout, and a display title never becomes a file name', () => {
    expect(stemOf({ ...rocodeRow, title: 'Suma a două numere' })).toBeUndefined();
    expect(stemOf({ ...rocodeRow, title: 'suma', problem_name: 'suma' })).toBeUndefined();
    const [task] = rocode.parseRow({ ...rocodeRow, examples: [{ input: '1 2\n', output: '3\n' }] }, loc) as IoTestsTask[];
    const text = rocode.buildPrompt(task as IoTestsTask, { pool: [], language: 'python' }).messages[0]?.content ?? '';
    expect(text).toContain('Intrare\n1 2\nIeșire\n3');
    expect(text).not.toContain('.in');
  });

  it('names the column a renamed or reshaped test list came from', () => {
    const { tests: _t, ...rest } = rocodeRow;
    expect(() => rocode.parseRow({ ...rest, test_cases: { input: ['1'], output: ['1'] } }, loc)).toThrow(
      'line 4, field "test_cases": must be a non-empty array of tests, got an object',
    );
    expect(() => rocode.parseRow({ ...rest, test_cases: [{ in_file: '1' }] }, loc)).toThrow('field "test_cases[0]": needs "input" and "output" strings');
    expect(() => rocode.parseRow(rest, loc)).toThrow('field "tests": must be a non-empty array of tests, got nothing');
  });

  it('rejects an explicit stem that is not a file name', () => {
    expect(() => stemOf({ ...rocodeRow, name: 'Suma a două numere' })).toThrow('line 4, field "name": must be a file stem');
  });
});
