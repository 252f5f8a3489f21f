import { describe, expect, it } from 'vitest';
import { agreement, errorLine, parseReferenceVerdicts } from '#core/agreement/index.ts';
import { InputError } from '#core/errors.ts';
import type { RunRecord, Verdict } from '#core/types.ts';
import { makeRecord } from '../../support/records.ts';

function record(task_id: string, sample: number, verdict: Verdict, language = 'kotlin', error: string | null = null): RunRecord {
  return makeRecord({
    run_id: 'r1',
    benchmark: 'mxeval',
    model: 'replay:x',
    provider: 'replay',
    task_id,
    sample,
    language,
    verdict,
    tests_passed: verdict === 'OK' ? 1 : 0,
    tests_total: 1,
    error,
    created_at: '2026-01-01T00:00:00Z',
  });
}

const lines = (...rows: object[]): string => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

describe('parseReferenceVerdicts', () => {
  it('numbers the samples of a task in file order', () => {
    const refs = parseReferenceVerdicts(
      lines({ task_id: 'T/1', passed: true }, { task_id: 'T/2', passed: false }, { task_id: 'T/1', passed: false }),
      'r.jsonl',
    );
    expect(refs.map((r) => [r.taskId, r.sample, r.passed])).toEqual([
      ['T/1', 0, true],
      ['T/2', 0, false],
      ['T/1', 1, false],
    ]);
  });

  it('reads mxeval_passed, and a human-eval result string when there is no boolean', () => {
    const refs = parseReferenceVerdicts(
      lines(
        { task_id: 'T/1', mxeval_passed: true, kind: 'canonical' },
        { task_id: 'T/1', result: 'passed' },
        { task_id: 'T/1', result: 'failed: AssertionError' },
        { task_id: 'T/1', result: 'timed out' },
      ),
      'r.jsonl',
    );
    expect(refs.map((r) => r.passed)).toEqual([true, true, false, false]);
    expect(refs[0]?.kind).toBe('canonical');
  });

  it('prefers passed to an MXEval result holding stderr', () => {
    const [ref] = parseReferenceVerdicts(lines({ task_id: 'T/1', passed: true, result: 'warning: deprecated' }), 'r.jsonl');
    expect(ref?.passed).toBe(true);
  });

  it.each([
    ['not JSON', '{"task_id": "T/1", "passed": tru\n', /^r\.jsonl, line 1: is not valid JSON/u],
    ['no task_id', lines({ passed: true }), /^r\.jsonl, line 1, field "task_id": must be a non-empty string/u],
    [
      'passed as a string',
      lines({ task_id: 'T/1', passed: true }, { task_id: 'T/1', passed: 'yes' }),
      /^r\.jsonl, line 2, field "passed": must be true or false, got "yes"/u,
    ],
    ['no verdict at all', lines({ task_id: 'T/1', completion: 'x' }), /^r\.jsonl, line 1, field "passed": is missing/u],
    [
      'a duplicate sample index',
      lines({ task_id: 'T/1', passed: true, sample: 0 }, { task_id: 'T/1', passed: true, sample: 0 }),
      /^r\.jsonl, line 2, field "sample": duplicate sample 0/u,
    ],
    ['no lines', '\n', /^r\.jsonl: has no results lines/u],
  ])('rejects %s with an InputError naming file, line and field', (_what, text, message) => {
    expect(() => parseReferenceVerdicts(text, 'r.jsonl')).toThrow(InputError);
    expect(() => parseReferenceVerdicts(text, 'r.jsonl')).toThrow(message);
  });
});

describe('agreement', () => {
  const refs = parseReferenceVerdicts(
    lines(
      { task_id: 'K/1', passed: true, kind: 'canonical' },
      { task_id: 'K/1', passed: false, kind: 'mutant' },
      { task_id: 'K/1', passed: true, kind: 'early_exit' },
      { task_id: 'C/1', passed: true, kind: 'canonical', language: 'cpp' },
      { task_id: 'C/2', passed: true, kind: 'canonical', language: 'cpp' },
    ),
    'r.jsonl',
  );
  const records = [
    record('K/1', 0, 'OK'),
    record('K/1', 1, 'RE', 'kotlin', 'Exception -- test case 0 did not pass.'),
    record('K/1', 2, 'WA', 'kotlin', 'exited before the end of the test'),
    record('C/1', 0, 'CE', 'cpp', "main.cpp:3: error: 'x' was not declared"),
    record('Z/9', 0, 'OK', 'cpp'),
  ];
  const report = agreement(records, refs);

  it('counts agreement overall, per language and per kind', () => {
    expect(report.overall).toMatchObject({ samples: 5, agree: 2, rate: 0.4, polyeval_passed: 1, reference_passed: 4 });
    expect(report.by_language.map((s) => [s.slice, s.agree, s.samples])).toEqual([
      ['cpp', 0, 2],
      ['kotlin', 2, 3],
    ]);
    expect(report.by_kind.map((s) => [s.slice, s.agree, s.samples])).toEqual([
      ['canonical', 1, 3],
      ['early_exit', 0, 1],
      ['mutant', 1, 1],
    ]);
  });

  it('lists every disagreement with both verdicts and polyeval error line', () => {
    expect(report.disagreements.map((d) => [d.task_id, d.sample, d.polyeval_verdict, d.reference_passed])).toEqual([
      ['K/1', 2, 'WA', true],
      ['C/1', 0, 'CE', true],
      ['C/2', 0, 'missing', true],
    ]);
    expect(report.disagreements[1]?.error).toContain("'x' was not declared");
  });

  it('counts reference lines without a record against agreement, and records the file does not mention apart', () => {
    expect(report.missing).toBe(1);
    expect(report.unmatched).toBe(1);
  });

  it('has no kind slices when the file has no kind column', () => {
    const plain = agreement([record('K/1', 0, 'OK')], parseReferenceVerdicts(lines({ task_id: 'K/1', passed: true }), 'r.jsonl'));
    expect(plain.by_kind).toEqual([]);
    expect(plain.overall.rate).toBe(1);
  });
});

describe('errorLine', () => {
  it("shows the compiler's first error, not the warnings kotlinc and gcc print before it", () => {
    const kotlinc =
      "warning: language version 2.0 is deprecated and its support will be removed in a future version of Kotlin. Update the version to 2.2.\nMain.kt:13:30: error: unresolved reference 'sumaCifrelor'.\n    return sumaCifrelor(n)\n";
    expect(errorLine(kotlinc)).toBe("Main.kt:13:30: error: unresolved reference 'sumaCifrelor'.");
    const gcc =
      "main.cpp: In function 'int dublu(int)':\nmain.cpp:4:7: warning: unused variable 'x'\nmain.cpp:5:3: error: 'y' was not declared in this scope\n";
    expect(errorLine(gcc)).toBe("main.cpp:5:3: error: 'y' was not declared in this scope");
  });

  it('shows the first non-empty line of a run-time error, and nothing for none', () => {
    expect(errorLine('\nexit code 1: Traceback (most recent call last):\nAssertionError: dublu(2)\n')).toBe('exit code 1: Traceback (most recent call last):');
    expect(errorLine(null)).toBe('');
  });
});
