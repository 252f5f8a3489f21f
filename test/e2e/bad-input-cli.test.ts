/**
 * Bad input a user can type, through the built CLI: every case exits 2 with a message naming
 * what is wrong (file, line, field), never a stack trace, and nothing recorded is lost.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempHome } from '../support/cli.ts';

describe('bad input on the command line', () => {
  it('a <run-id> that is a path (../../x) names no run: exit 2, no stack, nothing outside the store touched', async () => {
    const home = tempHome();
    const outside = join(home, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'manifest.json'), '{}');
    for (const args of [
      ['report', '../../outside'],
      ['rm', '../../outside'],
      ['run', '--resume', '../../outside'],
      ['report', '..'],
    ]) {
      const result = await runCli([...args, '--home', home]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain(`no run "${args.at(-1)}"`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(existsSync(join(outside, 'manifest.json'))).toBe(true);
  });

  it('--language that names no language polyeval runs (rust) exits 2 listing the languages, before anything runs', async () => {
    const home = tempHome();
    for (const language of ['rust', 'c,rust']) {
      const result = await runCli(['run', '-b', 'sample/abricot', '--language', language, '--json', '-q', '--home', home]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(
        `polyeval: --language ${language}: names no language polyeval runs: rust (languages: python, c, cpp, kotlin, java, javascript)`,
      );
      expect(result.stdout).toBe('');
    }
    expect(existsSync(join(home, 'store', 'runs'))).toBe(false);
  });

  it('--prices naming a missing or malformed file exits 2 naming it, even for a model without a price', async () => {
    const home = tempHome();
    const bad = join(home, 'prices.json');
    writeFileSync(bad, '{"models": 3}');
    const missing = await runCli(['run', '-b', 'sample/abricot', '--prices', join(home, 'none.json'), '--json', '-q', '--home', home]);
    expect(missing.code, missing.stderr).toBe(2);
    expect(missing.stderr).toContain(`${join(home, 'none.json')}: cannot read price table`);
    const malformed = await runCli(['run', '-b', 'sample/abricot', '--prices', bad, '--json', '-q', '--home', home]);
    expect(malformed.code, malformed.stderr).toBe(2);
    expect(malformed.stderr).toContain(`${bad}, field "models"`);
    expect(existsSync(join(home, 'store', 'runs'))).toBe(false);
  });

  it('--home naming a file exits 2 naming it, for run and list alike', async () => {
    const dir = tempHome();
    const file = join(dir, 'not-a-folder');
    writeFileSync(file, 'x');
    for (const args of [
      ['run', '-b', 'sample/abricot', '-q'],
      ['list', 'runs'],
    ]) {
      const result = await runCli([...args, '--home', file]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`polyeval: ${file} is not a folder (give --home a folder`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('--resume with -m', () => {
  it('is refused like -b (the run keeps its model), and the run stays as it was', async () => {
    const home = tempHome();
    const first = await runCli(['run', '-b', 'sample/abricot', '-m', 'reference', '--json', '-q', '--home', home]);
    expect(first.code, first.stderr).toBe(0);
    const runId = (JSON.parse(first.stdout) as { run_id: string }).run_id;
    const refused = await runCli(['run', '--resume', runId, '-m', 'openai:http://127.0.0.1:9/v1#other', '--json', '-q', '--home', home]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('polyeval: --resume takes the benchmark and model from the run; do not pass -m');
    expect((await runCli(['report', runId, '--home', home])).code).toBe(0);
  });
});

describe('query --file', () => {
  it('reads the query from a file; a missing file exits 2 naming it; CSV of no rows is still its header', async () => {
    const home = tempHome();
    const sql = join(home, 'q.sql');
    writeFileSync(sql, 'SELECT 42 AS answer');
    const read = await runCli(['query', '--file', sql, '--format', 'csv', '--home', home]);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toBe('answer\n42\n');
    const none = await runCli(['query', "SELECT task_id, verdict FROM records WHERE verdict = 'OK'", '--format', 'csv', '--home', home]);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe('task_id,verdict\n');
    const missing = await runCli(['query', '--file', join(home, 'none.sql'), '--home', home]);
    expect(missing.code, missing.stderr).toBe(2);
    expect(missing.stderr).toContain(`${join(home, 'none.sql')}, field "file": cannot read the query: ENOENT`);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('pages written with -o', () => {
  it('leaderboard --format html -o into a folder that does not exist yet creates it; a path under a file exits 2', async () => {
    const home = tempHome();
    const page = join(home, 'pages', 'nightly', 'board.html');
    const written = await runCli(['leaderboard', '--format', 'html', '-o', page, '--home', home]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout.trim()).toBe(page);
    expect(readFileSync(page, 'utf8')).toContain('<html');
    const blocker = join(home, 'a-file');
    writeFileSync(blocker, 'x');
    const refused = await runCli(['leaderboard', '--format', 'html', '-o', join(blocker, 'board.html'), '--home', home]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`-o ${join(blocker, 'board.html')}: cannot write ${join(blocker, 'board.html')}`);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('bad rows in an io-tests file', () => {
  const row = {
    task_id: 'b/1',
    name: 'suma',
    statement: 'Se dau două numere. Afișați suma lor.',
    tests: [{ input: '1 2\n', output: '3\n' }],
    solutions: { python: 'a, b = map(int, input().split())\nprint(a + b)\n' },
  };

  it('a test file the row names but the folder lacks exits 2 naming the file, field and task before anything runs', async () => {
    const home = tempHome();
    const file = join(home, 'tasks.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify(row)}\n${JSON.stringify({ ...row, task_id: 'b/2', tests: [{ input_path: 'tests/1.in', output_path: 'tests/1.out' }] })}\n`,
    );
    const result = await runCli(['run', '-b', `rocode:${file}`, '-m', 'reference', '--json', '-q', '--home', home]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`${file}, field "tests[0].input_path": task b/2: test file not found: ${join(home, 'tests', '1.in')}`);
    expect(existsSync(join(home, 'store', 'runs'))).toBe(false);
  });

  it('a program checker in a language polyeval does not run exits 2 naming the line and field (not an SE per sample)', async () => {
    const home = tempHome();
    const file = join(home, 'tasks.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify(row)}\n${JSON.stringify({ ...row, task_id: 'b/2', checker: { kind: 'program', language: 'rust', source: 'fn main() {}' } })}\n`,
    );
    const result = await runCli(['run', '-b', `rocode:${file}`, '-m', 'reference', '--json', '-q', '--home', home]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`${file}, line 2, field "checker.language": names no language polyeval runs: "rust"`);
  });

  it('a program checker whose language is spelled as datasets do ("Python3") runs in that language', async () => {
    const home = tempHome();
    const file = join(home, 'tasks.jsonl');
    const checker = { kind: 'program', language: 'Python3', source: 'import sys\nsys.exit(0 if open(sys.argv[3]).read().split() == ["3"] else 1)\n' };
    writeFileSync(file, `${JSON.stringify({ ...row, checker })}\n`);
    const result = await runCli(['run', '-b', `rocode:${file}`, '-m', 'reference', '--json', '-q', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).verdicts).toEqual({ OK: 1 });
  });
});

describe('errors name the flag the user typed', () => {
  it.each([
    [['--max-cost', '-5'], 'polyeval: --max-cost -5: Too small', 'maxCostUsd'],
    [['--max-cost=-5'], 'polyeval: --max-cost -5: Too small', 'maxCostUsd'],
    [['--time-scale', '0'], 'polyeval: --time-scale 0: Too small', 'timeScale'],
    [['--top-p', '3'], 'polyeval: --top-p 3: ', 'topP'],
    [['--split', 'nope'], 'polyeval: --split nope: no task in split "nope"', 'field "split"'],
    [['--protocol', 'nope'], 'polyeval: --protocol nope: unknown protocol "nope"', 'field "protocol"'],
  ])('run %j exits 2 naming the flag, not the schema field', async (flags, said, notSaid) => {
    const home = tempHome();
    const result = await runCli(['run', '-b', 'sample/abricot', '-m', 'reference', ...flags, '--json', '-q', '--home', home]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(said);
    expect(result.stderr).not.toContain(notSaid);
    expect(result.stdout).toBe('');
  });

  it.each([
    [['agree', 'some-run', 'results.jsonl', '--min', '2'], 'polyeval: --min 2: must be a rate between 0 and 1'],
    [['leaderboard', '--format', 'zzz'], 'polyeval: --format zzz: must be one of table, json, csv, html'],
    [['run', '-b', 'sample/abricot', '-m', 'reference', '--likert-mode=zzz'], 'polyeval: --likert-mode zzz: must be one of '],
    [['remote', 'run', '--dry-run', '-b', 'sample/abricot', '--architecture', 'zzz'], 'polyeval: --architecture zzz: must be one of arm64, x86_64'],
    [['list', 'zzz'], 'polyeval: list zzz: <what> must be one of runs, benchmarks, providers'],
  ])("%j exits 2 in polyeval's words, naming the flag, not commander's", async (args, said) => {
    const result = await runCli([...args, '--home', tempHome()]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(said);
    expect(result.stderr).not.toMatch(/^error: |is invalid\.|Allowed choices/m);
  });

  it('remote run --dry-run says the same, before anything is sent', async () => {
    const result = await runCli(['remote', 'run', '--dry-run', '-b', 'sample/abricot', '--max-cost', '-5']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('polyeval: --max-cost -5: Too small');
  });
});

describe('polyeval --version', () => {
  it('prints the version of the package, as -V does', async () => {
    const version = (JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(`${version}\n`);
    }
  });
});
