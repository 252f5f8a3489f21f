/**
 * Published datasets as they are, protocols and `inspect`, through the built CLI:
 * - a Kotlin HumanEval parquet whose `canonical_solution` is a list column (the Hub card
 *   declares `sequence: string`; the file is written here with the standard 3-level LIST
 *   layout pyarrow writes) passes every task with the reference model;
 * - `--protocol paper` gives the ABRICOT authors' gold digits on rows at every rounding
 *   edge, and the manifest, --json and report record the protocol;
 * - a RoCode row naming no file is judged on stdin/stdout.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, parseJson, runCli, tempHome } from '../support/cli.ts';

const home = tempHome();
const dir = tempHome('polyeval-data-');

type Row = Record<string, string>;
const kotlinRows = readFileSync(join(ROOT, 'sample/kotlin-humaneval/tasks.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .slice(0, 3)
  .map((l) => JSON.parse(l) as Row);
const STRING_COLUMNS = ['task_id', 'prompt', 'entry_point', 'test', 'description', 'language'];

/** Parquet in the Hub's column layout: strings, and canonical_solution as list<string>. */
function kotlinParquet(solutions: unknown[][]): Buffer {
  const schema = [
    { name: 'schema', num_children: STRING_COLUMNS.length + 1 },
    ...STRING_COLUMNS.map((name) => ({ name, type: 'BYTE_ARRAY' as const, converted_type: 'UTF8' as const, repetition_type: 'OPTIONAL' as const })),
    { name: 'canonical_solution', repetition_type: 'OPTIONAL' as const, num_children: 1, converted_type: 'LIST' as const },
    { name: 'list', repetition_type: 'REPEATED' as const, num_children: 1 },
    { name: 'element', type: 'BYTE_ARRAY' as const, converted_type: 'UTF8' as const, repetition_type: 'OPTIONAL' as const },
  ];
  const columnData = [...STRING_COLUMNS.map((name) => ({ name, data: kotlinRows.map((r) => r[name] ?? '') })), { name: 'canonical_solution', data: solutions }];
  return Buffer.from(parquetWriteBuffer({ columnData, schema } as Parameters<typeof parquetWriteBuffer>[0]));
}

describe('Kotlin HumanEval parquet with list columns', () => {
  const file = join(dir, 'kotlin-humaneval.parquet');
  beforeAll(() => {
    // Task 0 has two reference answers: the sample's, and the same body behind a comment line.
    const solutions = kotlinRows.map((r, i) =>
      i === 0 ? [r.canonical_solution, `    // the same answer, written again\n${r.canonical_solution}`] : [r.canonical_solution],
    );
    writeFileSync(file, kotlinParquet(solutions));
  });

  it('passes every task with -m reference, one sample per reference answer', async () => {
    const result = await runCli(['run', '-b', `kotlin-humaneval:${file}`, '-m', 'reference', '--json', '-q', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const run = parseJson<{ items: number; verdicts: Record<string, number>; metrics: Record<string, { value: number | null }>; protocol: { name: string } }>(
      result,
    );
    expect(run.items).toBe(4);
    expect(run.verdicts).toEqual({ OK: 4 });
    expect(run.metrics['pass@1']?.value).toBe(1);
    expect(run.protocol.name).toBe('mxeval');
  }, 600_000);

  it('inspect shows the format, the column behind each field and the first task without running anything', async () => {
    const result = await runCli(['inspect', '-b', `kotlin-humaneval:${file}`, '--json', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const inspection = parseJson<{
      files: { format: string; rows: number }[];
      mapping: { field: string; column: string | null }[];
      splits: Record<string, { rows: number; tasks: number }>;
      first_task: { id: string; prompt: { style: string; completion: string }; tests: { reference_answers: number; entry_point: string } };
      error: string | null;
    }>(result);
    expect(inspection.files).toEqual([expect.objectContaining({ format: 'parquet', rows: 3 })]);
    expect(inspection.mapping.find((m) => m.field === 'canonical_solution')?.column).toBe('canonical_solution');
    expect(inspection.splits).toEqual({ test: { rows: 3, tasks: 3 } });
    expect(inspection.error).toBeNull();
    expect(inspection.first_task).toMatchObject({
      id: kotlinRows[0]?.task_id,
      prompt: { style: 'completion', completion: kotlinRows[0]?.prompt },
      tests: { reference_answers: 2, entry_point: kotlinRows[0]?.entry_point },
    });
    expect(readdirSync(join(home, 'store'), { recursive: true }).filter((f) => String(f).includes('inspect'))).toEqual([]);
    // A split the file does not hold is bad input, as it is for run.
    const missing = await runCli(['inspect', '-b', `kotlin-humaneval:${file}`, '--split', 'validation', '--json', '--home', home]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no task in split "validation" (splits: test)');
  });

  it('rejects a column whose type changed with file, row and field, exit 2', async () => {
    const bad = join(dir, 'changed.parquet');
    const columnData = [
      ...STRING_COLUMNS.map((name) => ({ name, data: kotlinRows.map((r) => r[name] ?? ''), type: 'STRING' as const })),
      { name: 'canonical_solution', data: [1, 2, 3], type: 'INT32' as const },
    ];
    writeFileSync(bad, Buffer.from(parquetWriteBuffer({ columnData })));
    const result = await runCli(['run', '-b', `kotlin-humaneval:${bad}`, '-m', 'reference', '--json', '-q', '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${bad}, line 1, field "canonical_solution": must be a string or a list of strings, got number`);
    const inspected = await runCli(['inspect', '-b', `kotlin-humaneval:${bad}`, '--json', '--home', home]);
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(parseJson<{ error: string }>(inspected).error).toContain('field "canonical_solution"');
  });
});

describe("ABRICOT protocols: the authors' gold, the CALAMITA harness and its fork", () => {
  // Hand-made rows whose means sit on every rounding edge of 5·mean and where the two rules differ.
  const means = [0.1, 0.14, 0.3, 0.34, 0.5, 0.54, 0.7, 0.74, 0.9];
  // min(4, round(5·mean)) + 1 with Python's round (gpucce/lm-evaluation-harness 4d8bb2d6,
  // lm_eval/tasks/abricot/utils.py); computed with CPython 3.11.7.
  const authorsGold = [1, 2, 3, 3, 3, 4, 5, 5, 5];
  const binsGold = [1, 1, 2, 2, 3, 3, 4, 4, 5]; // min(5, 1 + floor(5·mean))
  const file = join(dir, 'abricot-edges.jsonl');
  const words = ['lampada', 'giustizia', 'sedia', 'libertà', 'animale', 'casa', 'pensiero', 'tavolo', 'amore'];
  beforeAll(() => {
    const rows = means.map((m, i) => ({
      id: `e${i}`,
      target_token: words[i],
      text: `Oggi parliamo di ${words[i]} a scuola.`,
      abs_mean: m,
      inc_mean: means[means.length - 1 - i],
    }));
    writeFileSync(file, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  });

  async function golds(runId: string): Promise<Record<string, number>> {
    const sql = `SELECT task_id, gold FROM records WHERE run_id = '${runId}' ORDER BY task_id`;
    const rows = parseJson<{ task_id: string; gold: number }[]>(await runCli(['query', sql, '--format', 'json', '--home', home]));
    return Object.fromEntries(rows.map((r) => [r.task_id, r.gold]));
  }

  it("gives the authors' gold digits under --protocol paper, names the source in the manifest, and the equal bins with --gold equal-bins", async () => {
    const result = await runCli(['run', '-b', `abricot:${file}`, '--protocol', 'paper', '-m', 'reference', '--json', '-q', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const run = parseJson<{
      run_id: string;
      report: string;
      protocol: { name: string; settings: { headline: string; gold: string; source: string }; overrides: object };
    }>(result);
    expect(run.protocol).toMatchObject({ name: 'paper', settings: { headline: 'pearson', gold: 'authors' }, overrides: {} });
    expect(run.protocol.settings.source).toContain('gpucce/lm-evaluation-harness 4d8bb2d6');
    const gold = await golds(run.run_id);
    means.forEach((_, i) => {
      expect(gold[`abstractness/e${i}`], `abs ${means[i]}`).toBe(authorsGold[i]);
      expect(gold[`inclusiveness/e${i}`], `inc ${means[means.length - 1 - i]}`).toBe(authorsGold[means.length - 1 - i]);
    });
    const manifest = JSON.parse(readFileSync(join(home, 'store', 'runs', run.run_id, 'manifest.json'), 'utf8')) as {
      protocol: { settings: { source: string } };
    };
    expect(manifest.protocol.settings.source).toContain('4d8bb2d6a0a246e51a4b4bddfd2e9d1666cbee09');
    expect(readFileSync(run.report, 'utf8')).toMatch(/protocol<\/th><td>paper · headline pearson/);

    const bins = await runCli([
      'run',
      '-b',
      `abricot:${file}`,
      '-m',
      'reference',
      '--gold',
      'equal-bins',
      '--temperature',
      '0.3',
      '--json',
      '-q',
      '--home',
      home,
    ]);
    expect(bins.code, bins.stderr).toBe(0);
    const binsRun = parseJson<{ run_id: string; protocol: { name: string; overrides: object } }>(bins);
    expect(binsRun.protocol).toMatchObject({ name: 'paper', overrides: { gold: 'equal-bins', temperature: 0.3 } });
    const binGolds = await golds(binsRun.run_id);
    means.forEach((_, i) => expect(binGolds[`abstractness/e${i}`]).toBe(binsGold[i]));
  }, 300_000);

  it("sends the organisers' harness prompt under --protocol calamita and headlines Pearson; calamita-fork headlines accuracy", async () => {
    const result = await runCli(['run', '-b', `abricot:${file}`, '--protocol', 'calamita', '-m', 'reference', '--json', '-q', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const run = parseJson<{ protocol: { name: string; settings: { headline: string } }; metrics: Record<string, { value: number | null }> }>(result);
    expect(run.protocol).toMatchObject({ name: 'calamita', settings: { headline: 'pearson' } });
    expect(run.metrics['pearson/subtask=abstractness']?.value).toBeCloseTo(1, 10);
    const inspect = await runCli(['inspect', '-b', `abricot:${file}`, '--protocol', 'calamita', '--home', home]);
    expect(inspect.code, inspect.stderr).toBe(0);
    expect(inspect.stdout).toMatch(/mammifero\)\n {4}\n {4}Rispondi esclusivamente con il numero scelto senza aggiungere nessuna spiegazione\n/);

    const fork = await runCli([
      'run',
      '-b',
      `abricot:${file}`,
      '--protocol',
      'calamita-fork',
      '--shots',
      '2',
      '-m',
      'reference',
      '--json',
      '-q',
      '--home',
      home,
    ]);
    expect(fork.code, fork.stderr).toBe(0);
    expect(parseJson<{ protocol: { overrides: object; settings: { shots: number; headline: string } } }>(fork).protocol).toMatchObject({
      overrides: { shots: 2 },
      settings: { shots: 2, headline: 'accuracy' },
    });
    const forkInspect = await runCli(['inspect', '-b', `abricot:${file}`, '--protocol', 'calamita-fork', '--shots', '1', '--home', home]);
    expect(forkInspect.code, forkInspect.stderr).toBe(0);
    expect(forkInspect.stdout).toContain('known: reproduced: f067d8bb');
    expect(forkInspect.stdout).toContain('first 25 rows');
    // One shot, then the item: the shot's prompt ends with " <gold>" and a blank line.
    expect(forkInspect.stdout).toMatch(/mammifero\)\n {5}[1-5]\n {4}\n {4}Assegna un valore/);
  }, 300_000);

  it('refuses a flag the protocol has no setting for, naming it', async () => {
    const result = await runCli(['run', '-b', `abricot:${file}`, '--prompt-language', 'en', '-m', 'reference', '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--prompt-language does not apply to abricot (protocol paper)');
  });

  it('refuses an unknown protocol with exit 2 naming the choices', async () => {
    const result = await runCli(['run', '-b', `abricot:${file}`, '--protocol', 'lm-eval', '-m', 'reference', '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown protocol "lm-eval" for abricot (protocols: paper, paper-figure, calamita, calamita-fork)');
  });

  it('list benchmarks names every protocol, the default first', async () => {
    const result = await runCli(['list', 'benchmarks', '--json', '--home', home]);
    const rows = parseJson<{ name: string; protocols: { name: string; default: boolean }[] }[]>(result);
    expect(rows.find((r) => r.name === 'abricot')?.protocols.map((p) => [p.name, p.default])).toEqual([
      ['paper', true],
      ['paper-figure', false],
      ['calamita', false],
      ['calamita-fork', false],
    ]);
    expect(rows.find((r) => r.name === 'rocode')?.protocols.map((p) => p.name)).toEqual(['paper', 'infoarena']);
    expect(rows.find((r) => r.name === 'kotlin-humaneval')?.protocols.map((p) => p.name)).toEqual(['mxeval', 'lenient']);
  });
});

describe('RoCode protocol and rows without a file name', () => {
  const file = join(dir, 'rocode-stdin.jsonl');
  beforeAll(() => {
    const row = {
      task_id: 'ro-stdin/1',
      title: 'Dublul unui număr',
      statement: 'Se citește un număr natural N. Afișați 2·N.',
      input_spec: 'Pe prima linie se află N.',
      output_spec: 'Afișați 2·N.',
      examples: [{ input: '3\n', output: '6\n' }],
      tests: [
        { input: '3\n', output: '6\n' },
        { input: '0\n', output: '0\n' },
      ],
      time_limit: 1,
      solutions: [{ language: 'Python3', code: 'print(2 * int(input()))\n' }],
    };
    writeFileSync(file, `${JSON.stringify(row)}\n`);
  });

  it('judges a row that names no file on stdin/stdout, never under its title', async () => {
    const result = await runCli(['run', '-b', `rocode:${file}`, '-m', 'reference', '--language', 'python', '--json', '-q', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson<{ verdicts: Record<string, number> }>(result).verdicts).toEqual({ OK: 1 });
    const inspected = parseJson<{ first_task: { tests: { files: string; time_limit_ms: number } } }>(
      await runCli(['inspect', '-b', `rocode:${file}`, '--json', '--home', home]),
    );
    expect(inspected.first_task.tests.files).toMatch(/^stdin → stdout/);
    expect(inspected.first_task.tests.time_limit_ms).toBe(4000);
  }, 120_000);

  it("plans the paper's n = 10, temperature 0.2 and top-p 0.9 for a sampling model; flags override single settings", async () => {
    const model = 'openai:http://127.0.0.1:9/v1#base-model';
    const paper = parseJson<{ n: number; items: number; protocol: { name: string; overrides: object } }>(
      await runCli(['run', '-b', `rocode:${file}`, '-m', model, '--dry-run', '--json', '--home', home]),
    );
    expect(paper).toMatchObject({ n: 10, items: 10, protocol: { name: 'paper', overrides: {} } });
    const changed = await runCli([
      'run',
      '-b',
      `rocode:${file}`,
      '-m',
      model,
      '-n',
      '2',
      '--row-limits',
      '--prompt-style',
      'chat',
      '--dry-run',
      '--json',
      '--home',
      home,
    ]);
    expect(changed.code, changed.stderr).toBe(0);
    expect(parseJson<{ n: number; protocol: { overrides: object } }>(changed)).toMatchObject({
      n: 2,
      protocol: { overrides: { n: 2, row_limits: true, prompt_style: 'chat' } },
    });
  });
});
