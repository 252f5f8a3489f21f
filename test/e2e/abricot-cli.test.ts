/**
 * The README's ABRICOT commands, run through the built CLI exactly as a user runs them.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, parseJson, runCli, tempHome } from '../support/cli.ts';

interface MetricJson {
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
  n: number;
  reason?: string;
}
interface RunJson {
  run_id: string;
  benchmark: string;
  model: string;
  n: number;
  items: number;
  verdicts: Record<string, number>;
  metrics: Record<string, MetricJson>;
  report: string;
  likert_mode: string;
}

/** Textbook Pearson, written independently of layers/core/metrics. */
function pearsonByHand(x: number[], y: number[]): number {
  const mx = x.reduce((a, b) => a + b) / x.length;
  const my = y.reduce((a, b) => a + b) / y.length;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  x.forEach((xi, i) => {
    const yi = y[i] as number;
    sxy += (xi - mx) * (yi - my);
    sxx += (xi - mx) ** 2;
    syy += (yi - my) ** 2;
  });
  return sxy / Math.sqrt(sxx * syy);
}

describe('polyeval run on ABRICOT', () => {
  const home = tempHome();
  let reference: RunJson;

  beforeAll(async () => {
    const result = await runCli(['run', '-b', 'sample/abricot', '-m', 'reference', '--json', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    reference = parseJson<RunJson>(result);
  });

  it('reports Pearson 1.0 for both subtasks with the reference model', () => {
    expect(reference.benchmark).toBe('abricot');
    expect(reference.metrics['pearson/subtask=abstractness']?.value).toBeCloseTo(1, 10);
    expect(reference.metrics['pearson/subtask=inclusiveness']?.value).toBeCloseTo(1, 10);
    expect(reference.metrics['accuracy/subtask=abstractness']?.value).toBe(1);
    expect(reference.likert_mode).toBe('likelihood');
  });

  it('prints one JSON object with the documented keys and one sample per task', () => {
    expect(Object.keys(reference)).toEqual(expect.arrayContaining(['run_id', 'benchmark', 'model', 'n', 'items', 'verdicts', 'metrics', 'report']));
    const rows = readFileSync(join(ROOT, 'sample/abricot/items.jsonl'), 'utf8').trim().split('\n');
    expect(rows.length).toBeGreaterThanOrEqual(24);
    expect(reference.items).toBe(rows.length * 2);
    expect(reference.verdicts).toEqual({ OK: rows.length * 2 });
  });

  it('gives every metric a 95% interval around its value', () => {
    for (const [name, m] of Object.entries(reference.metrics)) {
      // Per-word statistics (word_*) describe the run (the paper's Table 1); they estimate nothing.
      if (m.value === null || name.startsWith('word_')) continue;
      expect(m.ci_low, name).not.toBeNull();
      expect(m.ci_low as number, name).toBeLessThanOrEqual(m.value + 1e-12);
      expect(m.ci_high as number, name).toBeGreaterThanOrEqual(m.value - 1e-12);
    }
  });

  it('writes a self-contained HTML report with the manifest, metrics and charts', () => {
    expect(existsSync(reference.report)).toBe(true);
    const html = readFileSync(reference.report, 'utf8');
    expect(html).toContain(reference.run_id);
    expect(html).toContain('pearson');
    expect(html).toContain('<svg');
    expect(html).toContain('likelihood');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href="http/);
  });

  it('reports per-domain, across-word and within-word correlations, per-word statistics and the gold distributions', () => {
    const m = reference.metrics;
    for (const subtask of ['abstractness', 'inclusiveness']) {
      for (const domain of ['howto', 'subtitles']) expect(m[`pearson_domain/subtask=${subtask},domain=${domain}`]?.n).toBe(13);
      expect(m[`pearson_across_word/subtask=${subtask}`]?.value).not.toBeNull();
      expect(m[`pearson_within_word/subtask=${subtask}`]).toBeDefined();
    }
    // gatto has two contexts in the bundled sample: Table 1's columns for it, predictions beside.
    const rows = readFileSync(join(ROOT, 'sample/abricot/items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { target_lemma?: string; target_token: string; abs_mean: number });
    const gatto = rows.filter((r) => (r.target_lemma ?? r.target_token) === 'gatto').map((r) => r.abs_mean);
    expect(gatto).toHaveLength(2);
    expect(m['word_gold_mean/subtask=abstractness,word=gatto']?.value).toBeCloseTo((gatto[0]! + gatto[1]!) / 2, 10);
    expect(m['word_gold_std/subtask=abstractness,word=gatto']?.value).toBeCloseTo(Math.abs(gatto[0]! - gatto[1]!) / Math.SQRT2, 10);
    const html = readFileSync(reference.report, 'utf8');
    expect(html).toContain('<h2>Words and domains</h2>');
    expect(html).toContain('within word (mean of per-word r)');
    expect(html).toContain('domain subtitles');
    expect(html).toMatch(/<td>abstractness<\/td><td>gatto<\/td><td class="num">2<\/td>/);
    expect(html).toContain('abstractness: human scores (26 items)');
  });

  it('scores a hand-made replay file to precomputed values in digit-parse mode', async () => {
    const result = await runCli([
      'run',
      '-b',
      'sample/abricot',
      '-m',
      `replay:${join(ROOT, 'test/fixtures/abricot/replay-mixed.jsonl')}`,
      // The fixture's precomputed values were derived with the five equal bins.
      '--gold',
      'equal-bins',
      '-n',
      '1',
      '--json',
      '--home',
      home,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const run = parseJson<RunJson>(result);
    expect(run.likert_mode).toBe('digit-parse');
    expect(run.items).toBe(7);
    expect(run.verdicts).toEqual({ OK: 4, WA: 3 });
    const m = run.metrics;
    expect(m['accuracy/subtask=abstractness']?.value).toBeCloseTo(2 / 4, 10);
    expect(m['parse_failure_rate/subtask=abstractness']?.value).toBeCloseTo(1 / 4, 10);
    expect(m['pearson/subtask=abstractness']?.value).toBeCloseTo(pearsonByHand([1, 4, 2], [1, 5, 2]), 10);
    expect(m['pearson/subtask=abstractness']?.n).toBe(3);
    expect(m['accuracy/subtask=inclusiveness']?.value).toBeCloseTo(2 / 3, 10);
    expect(m['pearson/subtask=inclusiveness']?.value).toBeCloseTo(pearsonByHand([4, 2, 3], [4, 2, 5]), 10);
  });

  it.each([
    ['csv', 'items.csv'],
    ['tsv', 'items.tsv'],
  ])('loads ABRICOT rows from %s with the long or short column names', async (_format, file) => {
    const result = await runCli(['run', '-b', `abricot:${join(ROOT, 'test/fixtures/abricot', file)}`, '-m', 'reference', '--json', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const run = parseJson<RunJson>(result);
    expect(run.items).toBe(8);
    expect(run.metrics['pearson/subtask=inclusiveness']?.value).toBeCloseTo(1, 10);
  });

  it('lists the runs it recorded', async () => {
    const result = await runCli(['list', 'runs', '--json', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const runs = parseJson<{ run_id: string; status: string; recorded: number }[]>(result);
    const mine = runs.find((r) => r.run_id === reference.run_id);
    expect(mine).toMatchObject({ status: 'completed', recorded: reference.items });
  });

  it('prints the metrics table and report path of a run', async () => {
    const result = await runCli(['report', reference.run_id, '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/pearson\s+subtask=abstractness\s+1\.000/);
    expect(result.stdout).toContain(reference.report);
  });

  it('answers SQL over the metrics view as a table, JSON and CSV', async () => {
    const sql =
      "SELECT model, metric, slice, value FROM metrics WHERE benchmark = 'abricot' AND run_id = '" +
      reference.run_id +
      "' AND metric = 'pearson' ORDER BY slice";
    const json = await runCli(['query', sql, '--format', 'json', '--home', home]);
    expect(json.code, json.stderr).toBe(0);
    expect(parseJson<unknown[]>(json)).toEqual([
      { model: 'reference', metric: 'pearson', slice: 'subtask=abstractness', value: 1 },
      { model: 'reference', metric: 'pearson', slice: 'subtask=inclusiveness', value: 1 },
    ]);
    const csv = await runCli(['query', sql, '--format', 'csv', '--home', home]);
    expect(csv.stdout.trim().split('\n')).toEqual([
      'model,metric,slice,value',
      'reference,pearson,subtask=abstractness,1',
      'reference,pearson,subtask=inclusiveness,1',
    ]);
    const tableOut = await runCli(['query', sql, '--home', home]);
    expect(tableOut.stdout).toMatch(/^model\s+metric\s+slice\s+value/);
  });

  it('keeps one record row per sample in the records view', async () => {
    const result = await runCli([
      'query',
      `SELECT count(*) AS rows, count(DISTINCT task_id) AS tasks, sum(CASE WHEN verdict = 'OK' THEN 1 ELSE 0 END) AS ok FROM records WHERE run_id = '${reference.run_id}'`,
      '--format',
      'json',
      '--home',
      home,
    ]);
    expect(parseJson<unknown[]>(result)).toEqual([{ rows: reference.items, tasks: reference.items, ok: reference.items }]);
  });

  it('compares two runs with a paired bootstrap per metric', async () => {
    const replay = parseJson<RunJson>(
      await runCli([
        'run',
        '-b',
        'sample/abricot',
        '-m',
        `replay:${join(ROOT, 'test/fixtures/abricot/replay-mixed.jsonl')}`,
        '--gold',
        'equal-bins',
        '--json',
        '-q',
        '--home',
        home,
      ]),
    );
    const result = await runCli(['compare', replay.run_id, reference.run_id, '--json', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const out = parseJson<{ rows: { metric: string; slice: string; diff: number | null; units: number }[] }>(result);
    const acc = out.rows.find((r) => r.metric === 'accuracy' && r.slice === 'subtask=abstractness');
    expect(acc?.units).toBe(4);
    expect(acc?.diff).toBeCloseTo(1 - 2 / 4, 10);
  });
});

describe('bad input', () => {
  const home = tempHome();

  it.each([
    [['run', '-b', 'nosuch', '-m', 'reference'], /unknown benchmark "nosuch"/],
    [['run', '-b', 'sample/abricot', '-m', 'nosuch:x'], /unknown provider "nosuch:x"/],
    [['run', '-b', 'abricot:/no/such/file.jsonl', '-m', 'reference'], /\/no\/such\/file\.jsonl/],
    [['run', '-b', 'sample/abricot', '-m', 'reference', '-n', '0'], /^polyeval: -n 0: must be an integer ≥ 1$/m],
    [['run', '-b', 'sample/abricot', '-m', 'reference', '-n0'], /^polyeval: -n 0: must be an integer ≥ 1$/m],
    [['run', '-bnosuch', '-m', 'reference'], /^polyeval: -b nosuch: unknown benchmark "nosuch"/m],
    // A folder under a file (the node binary) cannot be made: the error names -o as typed.
    [['leaderboard', '--format', 'html', '-o', `${process.execPath}/board.html`], /^polyeval: -o \S+\/board\.html: cannot write/m],
    [['run', '-b', 'sample/abricot', '-m', 'replay:/no/such/answers.jsonl'], /answers\.jsonl/],
  ])('exits 2 with a message naming what is wrong: %j', async (args, message) => {
    const result = await runCli([...args, '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('names file, line and field of a malformed row', async () => {
    const file = join(home, 'bad.jsonl');
    writeFileSync(
      file,
      '{"id":"a","target_token":"casa","text":"La casa è grande.","abs_mean":0.2,"inc_mean":0.3}\n{"id":"b","target_token":"sole","text":"Il sole.","abs_mean":"alto","inc_mean":0.1}\n',
    );
    const result = await runCli(['run', '-b', `abricot:${file}`, '-m', 'reference', '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}, line 2, field "abs_mean"`);
  });

  it('names the replay line of an unknown task id', async () => {
    const file = join(home, 'answers.jsonl');
    writeFileSync(file, '{"task_id":"abstractness/it001","completion":"1"}\n{"task_id":"abstractness/zzz","completion":"2"}\n');
    const result = await runCli(['run', '-b', 'sample/abricot', '-m', `replay:${file}`, '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}, line 2, field "task_id": unknown task id "abstractness/zzz"`);
  });
});
