/**
 * Java and JavaScript MXEval-format tasks through the built CLI (hand-made fixtures in
 * test/fixtures/mxeval, shaped like MBJP and MBJSP rows): the reference model passes every
 * task, and replayed answers — wrong, exiting early, not compiling, fenced chat answers that
 * restate the signature, completions that run on past the function — get the verdict each
 * row's `expect` field names.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, parseJson, runCli, tempHome } from '../support/cli.ts';

interface RunJson {
  run_id: string;
  items: number;
  verdicts: Record<string, number>;
  metrics: Record<string, { value: number | null }>;
}

const home = tempHome();
const fixture = (name: string) => join(ROOT, 'test', 'fixtures', 'mxeval', name);

describe.each(['java', 'javascript'])('%s MXEval tasks through the CLI', (language) => {
  const tasks = fixture(`${language}-tasks.jsonl`);
  const answers = fixture(`${language}-answers.jsonl`);

  it('passes every task with the reference model', async () => {
    const result = await runCli(['run', '-b', `mxeval:${tasks}`, '-m', 'reference', '--json', '-q', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const run = parseJson<RunJson>(result);
    expect(run.verdicts).toEqual({ OK: 2 });
    expect(run.metrics['pass@1']?.value).toBe(1);
  }, 300_000);

  it('gives each replayed answer the verdict it expects', async () => {
    const result = await runCli(['run', '-b', `mxeval:${tasks}`, '-m', `replay:${answers}`, '--json', '-q', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const run = parseJson<RunJson>(result);
    const expected = readFileSync(answers, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { task_id: string; expect: string });
    const sql = `SELECT task_id, sample, verdict, language FROM records WHERE run_id = '${run.run_id}' ORDER BY task_id, sample`;
    const rows = parseJson<{ task_id: string; sample: number; verdict: string; language: string }[]>(
      await runCli(['query', sql, '--format', 'json', '--home', home]),
    );
    expect(rows.map((r) => [r.task_id, r.verdict, r.language])).toEqual(expected.map((e) => [e.task_id, e.expect, language]));
    // task 0 never passes; every answer to task 1 does → pass@1 = (0 + 1) / 2
    expect(run.metrics['pass@1']?.value).toBeCloseTo(0.5, 10);
  }, 300_000);
});
