/**
 * `polyeval agree` and the fidelity script through the built CLI, on hand-made MXEval-format
 * Python tasks (`dublu`, `invers`) with answers of the fidelity set's three kinds. The
 * reference verdicts pass the early exits, as MXEval does for Kotlin and C++ (exit code 0
 * is its only signal): polyeval must disagree there and only there.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, parseJson, runCli, startCli, tempHome } from '../support/cli.ts';

const home = tempHome();
const dir = join(home, 'fidelity');
const jsonl = (rows: object[]): string => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

// MXEval's row shape (mbpp_release_v1.jsonl: task_id, prompt, entry_point, test, language, …).
const problems = [
  {
    task_id: 'HM/1',
    language: 'python',
    description: 'Dublează un număr.',
    prompt: 'def dublu(n):\n    """Întoarce dublul lui n."""\n',
    entry_point: 'dublu',
    canonical_solution: '    return 2 * n\n',
    test: '\n\ndef check(candidate):\n    assert candidate(2) == 4\n    assert candidate(-3) == -6\n',
  },
  {
    task_id: 'HM/2',
    language: 'python',
    description: 'Inversează un șir.',
    prompt: 'def invers(s):\n    """Întoarce șirul s inversat."""\n',
    entry_point: 'invers',
    canonical_solution: '    return s[::-1]\n',
    test: '\n\ndef check(candidate):\n    assert candidate("abc") == "cba"\n    assert candidate("") == ""\n',
  },
];
const samples = [
  { task_id: 'HM/1', completion: '    return 2 * n\n', language: 'python', kind: 'canonical', mxeval_passed: true },
  { task_id: 'HM/1', completion: '    return 3 * n\n', language: 'python', kind: 'mutant', mxeval_passed: false },
  { task_id: 'HM/1', completion: '    import os\n    os._exit(0)\n', language: 'python', kind: 'early_exit', mxeval_passed: true },
  { task_id: 'HM/2', completion: '    return s[::-1]\n', language: 'python', kind: 'canonical', mxeval_passed: true },
  { task_id: 'HM/2', completion: '    return s[1:]\n', language: 'python', kind: 'mutant', mxeval_passed: false },
  { task_id: 'HM/2', completion: '    import os\n    os._exit(0)\n', language: 'python', kind: 'early_exit', mxeval_passed: true },
];
let runId = '';

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'hand.problems.jsonl'), jsonl(problems));
  writeFileSync(join(dir, 'hand.samples.jsonl'), jsonl(samples));
  const run = await runCli([
    'run',
    '-b',
    `mxeval:${join(dir, 'hand.problems.jsonl')}`,
    '-m',
    `replay:${join(dir, 'hand.samples.jsonl')}`,
    '--json',
    '-q',
    '--home',
    home,
  ]);
  expect(run.code, run.stderr).toBe(0);
  runId = parseJson<{ run_id: string }>(run).run_id;
}, 300_000);

interface AgreeJson {
  overall: { samples: number; agree: number; rate: number };
  by_language: { slice: string; agree: number; samples: number }[];
  by_kind: { slice: string; agree: number; samples: number; polyeval_passed: number }[];
  disagreements: { task_id: string; sample: number; kind: string; polyeval_verdict: string; reference_passed: boolean; error: string }[];
  below_min?: boolean;
}

describe('polyeval agree', () => {
  it('reports agreement per kind and disagrees exactly on the early exits', async () => {
    const r = await runCli(['agree', runId, join(dir, 'hand.samples.jsonl'), '--json', '--home', home]);
    expect(r.code, r.stderr).toBe(0);
    const report = parseJson<AgreeJson>(r);
    expect(report.overall).toMatchObject({ samples: 6, agree: 4 });
    expect(report.by_language).toMatchObject([{ slice: 'python', agree: 4, samples: 6 }]);
    expect(report.by_kind.map((s) => [s.slice, s.agree, s.samples, s.polyeval_passed])).toEqual([
      ['canonical', 2, 2, 2],
      ['early_exit', 0, 2, 0],
      ['mutant', 2, 2, 0],
    ]);
    expect(report.disagreements.map((d) => [d.task_id, d.sample, d.kind, d.polyeval_verdict, d.reference_passed])).toEqual([
      ['HM/1', 2, 'early_exit', 'WA', true],
      ['HM/2', 2, 'early_exit', 'WA', true],
    ]);
    expect(report.disagreements[0]?.error).toMatch(/exited before the end of the test/u);
  }, 120_000);

  it('prints the agreement, the slices and every disagreement as text', async () => {
    const r = await runCli(['agree', runId, join(dir, 'hand.samples.jsonl'), '--home', home]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('agreement 66.67% (4/6 samples)');
    expect(r.stdout).toMatch(/early_exit\s+2\s+0\s+0\.00%/u);
    expect(r.stdout).toMatch(/HM\/2\s+2\s+python\s+early_exit\s+WA \(fail\)\s+pass\s+exited before the end of the test/u);
  }, 120_000);

  it('exits 1 below --min and 0 at or above it', async () => {
    const below = await runCli(['agree', runId, join(dir, 'hand.samples.jsonl'), '--min', '0.9', '--json', '--home', home]);
    expect(below.code).toBe(1);
    expect(parseJson<AgreeJson>(below).below_min).toBe(true);
    expect(below.stderr).toContain('agreement 66.67% is below --min 90.00%');
    const above = await runCli(['agree', runId, join(dir, 'hand.samples.jsonl'), '--min', '66%', '--home', home]);
    expect(above.code, above.stderr).toBe(0);
  }, 120_000);

  it('exits 1 below --min even when the reader has closed stdout (`| head -c0`)', async () => {
    // A closed stdout loses only what was left to print: the exit code is the command's own.
    const child = startCli(['agree', runId, join(dir, 'hand.samples.jsonl'), '--min', '0.9', '--json', '--home', home]);
    child.stdout?.destroy(); // the reader is gone before the report is printed
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toContain('agreement 66.67% is below --min 90.00%');
    expect(stderr).not.toMatch(/EPIPE|internal error/);
    expect(code).toBe(1);
  }, 120_000);

  it('reads human-eval result files (result strings, no kind)', async () => {
    const file = join(dir, 'human-eval_results.jsonl');
    const results = ['passed', 'failed: AssertionError', 'failed: ', 'passed', 'failed: AssertionError', 'timed out'];
    writeFileSync(file, jsonl(samples.map((s, i) => ({ task_id: s.task_id, completion: s.completion, result: results[i] }))));
    const r = await runCli(['agree', runId, file, '--json', '--home', home]);
    expect(r.code, r.stderr).toBe(0);
    const report = parseJson<AgreeJson>(r);
    expect(report.overall).toMatchObject({ samples: 6, agree: 6, rate: 1 });
    expect(report.by_kind).toEqual([]);
  }, 120_000);

  it('rejects a bad results file naming file, line and field (exit 2)', async () => {
    const file = join(dir, 'bad.jsonl');
    writeFileSync(
      file,
      jsonl([
        { task_id: 'HM/1', passed: true },
        { task_id: 'HM/1', passed: 'yes' },
      ]),
    );
    const r = await runCli(['agree', runId, file, '--home', home]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}, line 2, field "passed": must be true or false`);
  }, 120_000);

  it('rejects an unknown run, a missing file and a bad --min (exit 2)', async () => {
    expect((await runCli(['agree', 'no-such-run', join(dir, 'hand.samples.jsonl'), '--home', home])).stderr).toContain('no run "no-such-run"');
    const missing = await runCli(['agree', runId, join(dir, 'nothing.jsonl'), '--home', home]);
    expect([missing.code, missing.stderr.includes('nothing.jsonl: cannot be read (ENOENT)')]).toEqual([2, true]);
    const badMin = await runCli(['agree', runId, join(dir, 'hand.samples.jsonl'), '--min', '1.5', '--home', home]);
    expect([badMin.code, badMin.stderr.includes('--min 1.5: must be a rate between 0 and 1')]).toEqual([2, true]);
  }, 120_000);
});

describe('the fidelity script', () => {
  const script = (args: string[]) => spawnSync(process.execPath, [join(ROOT, 'scripts', 'fidelity.mjs'), ...args], { encoding: 'utf8', cwd: ROOT });

  it('passes a set where canonical and mutant answers agree and every early exit fails', () => {
    const r = script(['--dir', dir, '--sets', 'hand', '--home', home]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/hand: 6 samples · canonical 2\/2, early_exit 0\/2, mutant 2\/2 · 2\/2 early exits fail · [\d.]+ s/u);
  }, 300_000);

  it('fails, naming the sample, when a mutant verdict disagrees', () => {
    const wrong = samples.map((s, i) => (i === 4 ? { ...s, mxeval_passed: true } : s));
    writeFileSync(join(dir, 'wrong.problems.jsonl'), jsonl(problems));
    writeFileSync(join(dir, 'wrong.samples.jsonl'), jsonl(wrong));
    const r = script(['--dir', dir, '--sets', 'wrong', '--home', home]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('FIDELITY CHECK FAILED');
    expect(r.stderr).toContain('wrong: mutant agreement 1/2');
    expect(r.stderr).toMatch(/HM\/2 #1: polyeval RE, MXEval pass/u);
  }, 300_000);

  it('fails loudly when the fidelity folder is missing', () => {
    const r = script(['--dir', join(dir, 'absent')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/FIDELITY CHECK FAILED: .*absent does not exist/u);
  });
});

describe('the MXEval agreement script (scripts/mxeval-agree.mjs)', () => {
  // A checkout laid out as amazon-science/mxeval's is (data/mbxp/metadata.json naming the
  // release file per language, metadata_examples.json the example samples), with our rows.
  const checkout = join(home, 'mxeval-checkout');
  const mbxp = join(checkout, 'data', 'mbxp');
  const script = (args: string[]) =>
    spawnSync(process.execPath, [join(ROOT, 'scripts', 'mxeval-agree.mjs'), checkout, '--home', home, ...args], { encoding: 'utf8', cwd: ROOT });
  const examples = [
    { task_id: 'HM/1', completion: '    return 2 * n\n', language: 'python' },
    { task_id: 'HM/2', completion: '    return s[1:]\n', language: 'python' },
  ];

  beforeAll(() => {
    mkdirSync(join(mbxp, 'examples'), { recursive: true });
    writeFileSync(join(mbxp, 'metadata.json'), JSON.stringify({ python: 'hm_release_v1.jsonl' }));
    writeFileSync(join(mbxp, 'metadata_examples.json'), JSON.stringify({ python: 'examples/hmp_samples.jsonl' }));
    writeFileSync(join(mbxp, 'hm_release_v1.jsonl'), jsonl(problems));
    writeFileSync(join(mbxp, 'examples', 'hmp_samples.jsonl'), jsonl(examples));
    // where MXEval's evaluate_functional_correctness writes its verdicts: <samples>_results.jsonl
    writeFileSync(
      join(mbxp, 'examples', 'hmp_samples.jsonl_results.jsonl'),
      jsonl([
        { ...examples[0], result: 'passed', passed: true },
        { ...examples[1], result: 'failed: ', passed: false },
      ]),
    );
  });

  it("compares every sample with MXEval's results file beside the samples", () => {
    const r = script(['--sets', 'hmp']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^hmp: 2 of 2 samples compared · agreement 2\/2 = 100\.00% · polyeval (OK 1, RE 1|RE 1, OK 1) · MXEval passes 1 · run mxeval-/mu);
  }, 300_000);

  it('runs and compares only the samples of a results file cut short, saying how many', () => {
    const partial = join(home, 'partial-results');
    mkdirSync(partial, { recursive: true });
    writeFileSync(join(partial, 'hmp_samples.jsonl_results.jsonl'), jsonl([{ ...examples[1], passed: false }]));
    const r = script(['--sets', 'hmp', '--results', partial, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      sets: Record<string, { samples_in_file: number; overall: { samples: number; agree: number }; unmatched: number }>;
    };
    expect(report.sets['hmp']).toMatchObject({ samples_in_file: 2, overall: { samples: 1, agree: 1 }, unmatched: 0 });
  }, 300_000);

  it('lists each disagreement and exits 1 below --min', () => {
    const wrong = join(home, 'wrong-results');
    mkdirSync(wrong, { recursive: true });
    writeFileSync(
      join(wrong, 'hmp_samples.jsonl_results.jsonl'),
      jsonl([
        { ...examples[0], passed: false, result: 'failed: AssertionError' },
        { ...examples[1], passed: true },
      ]),
    );
    const r = script(['--sets', 'hmp', '--results', wrong]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('agreement 0/2 = 0.00%');
    expect(r.stdout).toContain('HM/1 #0: polyeval OK, MXEval fail — MXEval: failed: AssertionError');
    expect(r.stdout).toMatch(/HM\/2 #0: polyeval RE, MXEval pass — polyeval: /u);
    expect(r.stderr).toContain('agreement below 0.99');
  }, 300_000);

  it('names what is missing: an unknown set, a results file MXEval has not written', () => {
    const unknown = script(['--sets', 'mbxx']);
    expect([unknown.status, unknown.stderr.includes('unknown set "mbxx"'), unknown.stderr.includes('hmp')]).toEqual([2, true, true]);
    const none = script(['--sets', 'hmp', '--results', join(home, 'nowhere')]);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/nowhere\/hmp_samples\.jsonl_results\.jsonl does not exist: run MXEval first/u);
  });
});
