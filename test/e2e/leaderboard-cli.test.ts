/**
 * `polyeval leaderboard` over this home's runs, and `compare --format html`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, parseJson, runCli, tempHome } from '../support/cli.ts';

interface Row {
  benchmark: string;
  dataset: string;
  model: string;
  metric: string;
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
  items: number;
  cost_usd: number;
  date: string;
  run_id: string;
  runs: number;
}

const replay = join(ROOT, 'test', 'fixtures', 'abricot', 'replay-mixed.jsonl');

describe('polyeval leaderboard', () => {
  const home = tempHome();
  let reference = '';
  let replayed = '';

  beforeAll(async () => {
    const a = await runCli(['run', '-b', 'sample/abricot', '-m', `replay:${replay}`, '--json', '-q', '--home', home]);
    replayed = parseJson<{ run_id: string }>(a).run_id;
    const b = await runCli(['run', '-b', 'sample/abricot', '-m', 'reference', '--json', '-q', '--home', home]);
    reference = parseJson<{ run_id: string }>(b).run_id;
  }, 120_000);

  it('lists the best run of each model on a benchmark, best first, with intervals', async () => {
    const result = await runCli(['leaderboard', '-b', 'abricot', '--format', 'json', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const { rows } = parseJson<{ rows: Row[] }>(result);
    const board = rows.filter((r) => r.metric === 'pearson/subtask=inclusiveness');
    expect(board.map((r) => r.run_id)).toEqual([reference, replayed]);
    expect(board[0]).toMatchObject({
      benchmark: 'abricot',
      dataset: 'sample/abricot',
      protocol: 'paper',
      model: 'reference',
      value: 1,
      ci_low: 1,
      ci_high: 1,
      items: 52,
      cost_usd: 0,
      runs: 1,
    });
    const second = board[1] as Row;
    expect(second.value).toBeLessThan(1);
    expect(second.ci_low).toBeLessThanOrEqual(second.value as number);
    expect(second.ci_high).toBeGreaterThanOrEqual(second.value as number);
    expect(Number.isNaN(Date.parse(second.date))).toBe(false);
    expect(rows.filter((r) => r.metric === 'pearson/subtask=abstractness')).toHaveLength(2);
  });

  it('ranks by another metric and filters out other benchmarks', async () => {
    const byAccuracy = parseJson<{ rows: Row[] }>(
      await runCli(['leaderboard', '--metric', 'accuracy/subtask=abstractness', '--format', 'json', '--home', home]),
    );
    expect(byAccuracy.rows.map((r) => r.model)).toEqual(['reference', `replay:${replay}`]);
    const none = parseJson<{ rows: Row[] }>(await runCli(['leaderboard', '-b', 'rocode', '--format', 'json', '--home', home]));
    expect(none.rows).toEqual([]);
    const csv = await runCli(['leaderboard', '--format', 'csv', '--home', home]);
    expect(csv.stdout.split('\n')[0]).toBe('benchmark,dataset,language,protocol,model,metric,value,ci_low,ci_high,n,items,cost_usd,date,run_id,runs,reason');
  });

  it('writes a self-contained HTML page with the benchmarks side by side and interval bars', async () => {
    const result = await runCli(['leaderboard', '--format', 'html', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const html = readFileSync(result.stdout.trim(), 'utf8');
    expect(html).toContain('<table id="side-by-side">');
    expect(html).toContain('sample/abricot · paper<br><span class="small">pearson/subtask=abstractness');
    expect(html).toContain('sample/abricot · paper<br><span class="small">pearson/subtask=inclusiveness');
    expect(html.match(/<svg class="bar"/g)?.length).toBe(4);
    expect(html).not.toMatch(/<script|<link|src=|https?:\/\//);
  });

  it('compare --format html shows the paired differences with their intervals', async () => {
    const result = await runCli(['compare', replayed, reference, '--format', 'html', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const html = readFileSync(result.stdout.trim(), 'utf8');
    const json = parseJson<{ rows: { metric: string; slice: string; diff: number | null }[] }>(
      await runCli(['compare', replayed, reference, '--json', '--home', home]),
    );
    const shown = json.rows.filter((r) => r.diff !== null);
    expect(shown.length).toBeGreaterThan(0);
    expect(html.match(/<svg class="bar"/g)?.length).toBe(shown.length);
    expect(html).toContain(`${replayed}`);
    expect(html).not.toMatch(/<script|<link|src=|https?:\/\//);
  });
});
