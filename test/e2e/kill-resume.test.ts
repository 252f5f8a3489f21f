/**
 * A run killed with SIGKILL midway, then resumed, ends with exactly one record per item —
 * also when the kill tore the ledger journal's last line (made certain here by tearing it).
 */
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson, runCli, startCli, tempHome } from '../support/cli.ts';

const ROWS = 1500;

function writeDataset(file: string, rows = ROWS): void {
  const words = ['casa', 'sole', 'libro', 'strada', 'idea', 'virtù', 'fiume', 'sogno'];
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    const word = words[i % words.length] as string;
    const text = `Frase numero ${i}: la parola ${word} compare qui.`;
    lines.push(JSON.stringify({ id: `k${i}`, target_token: word, text, abs_mean: (i % 97) / 97, inc_mean: (i % 89) / 89 }));
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

function countItems(home: string): number {
  let count = 0;
  const runs = join(home, 'store', 'runs');
  try {
    for (const run of readdirSync(runs)) {
      const items = join(runs, run, 'items');
      try {
        for (const task of readdirSync(items)) count += readdirSync(join(items, task)).filter((f) => f.endsWith('.json')).length;
      } catch {
        // not yet created
      }
    }
  } catch {
    return 0;
  }
  return count;
}

describe('kill and resume', () => {
  it('ends with exactly one record per item after SIGKILL midway and --resume', async () => {
    const home = tempHome();
    const dataset = join(home, 'big.jsonl');
    writeDataset(dataset);
    const child = startCli(['run', '-b', `abricot:${dataset}`, '-m', 'reference', '--concurrency', '2', '--jobs', '1', '--home', home]);
    const killedAt = await new Promise<number>((resolve, reject) => {
      const timer = setInterval(() => {
        const n = countItems(home);
        if (n >= 200) {
          clearInterval(timer);
          child.kill('SIGKILL');
          resolve(n);
        }
      }, 20);
      child.on('exit', (code) => {
        clearInterval(timer);
        reject(new Error(`run finished (exit ${code}) before it could be killed`));
      });
    });
    await new Promise((r) => child.once('close', r));
    expect(killedAt).toBeLessThan(ROWS * 2);

    // SIGKILL mid-append leaves a torn last line; tear it for certain.
    const [journalName] = readdirSync(join(home, 'ledger')).filter((name) => name.endsWith('.jsonl'));
    const journal = join(home, 'ledger', journalName as string);
    if (readFileSync(journal, 'utf8').endsWith('\n')) appendFileSync(journal, '{"e":"item","id":"torn/k0/0","v":"O');

    const runs = parseJson<{ run_id: string; status: string; recorded: number }[]>(await runCli(['list', 'runs', '--json', '--home', home]));
    expect(runs).toHaveLength(1);
    const runId = runs[0]?.run_id as string;
    expect(runs[0]?.status).toBe('running');

    const resumed = await runCli(['run', '--resume', runId, '--json', '--home', home]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = parseJson<{ items: number; run_id: string }>(resumed);
    expect(summary.run_id).toBe(runId);
    expect(summary.items).toBe(ROWS * 2);
    expect(countItems(home)).toBe(ROWS * 2);

    // The torn line stays where it was, between the records before the kill and after the resume, and is read past.
    const lines = readFileSync(journal, 'utf8').split('\n');
    const tornAt = lines.findIndex((line) => line.trim() !== '' && !line.trimEnd().endsWith('}'));
    expect(tornAt).toBeGreaterThan(0);
    expect(tornAt).toBeLessThan(lines.length - 2);
    const after = parseJson<{ status: string; recorded: number; items: number }[]>(await runCli(['list', 'runs', '--json', '--home', home]));
    expect(after[0]).toMatchObject({ status: 'completed', recorded: ROWS * 2, items: ROWS * 2 });

    const dupes = await runCli([
      'query',
      `SELECT count(*) AS rows, count(DISTINCT task_id || '#' || CAST(sample AS VARCHAR)) AS distinct_items FROM records WHERE run_id = '${runId}'`,
      '--format',
      'json',
      '--home',
      home,
    ]);
    expect(parseJson<unknown[]>(dupes)).toEqual([{ rows: ROWS * 2, distinct_items: ROWS * 2 }]);
  }, 240_000);

  it('refuses to resume from a journal damaged before its last line, naming file, line and field', async () => {
    const home = tempHome();
    const dataset = join(home, 'small.jsonl');
    writeDataset(dataset, 3);
    const first = await runCli(['run', '-b', `abricot:${dataset}`, '-m', 'reference', '--json', '--home', home]);
    expect(first.code, first.stderr).toBe(0);
    const runId = parseJson<{ run_id: string }>(first).run_id;
    const [journalName] = readdirSync(join(home, 'ledger')).filter((name) => name.endsWith('.jsonl'));
    const journal = join(home, 'ledger', journalName as string);
    const lines = readFileSync(journal, 'utf8').split('\n');
    lines.splice(3, 0, '{"e":"item","id":"x","v":"PASSED","at":"2026-01-01T00:00:00Z"}');
    writeFileSync(journal, lines.join('\n'));

    const refused = await runCli(['run', '--resume', runId, '--home', home]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${journal}, line 4, field "v"`);
    expect(refused.stderr).not.toContain('internal error'); // a damaged file, named, not a stack
    // The other runs stay listed; the damaged one is listed as failed, with the reason.
    const other = await runCli(['run', '-b', `abricot:${dataset}`, '-m', 'reference', '--json', '--home', home]);
    expect(other.code, other.stderr).toBe(0);
    const listed = await runCli(['list', 'runs', '--json', '--home', home]);
    expect(listed.code, listed.stderr).toBe(0);
    const runs = parseJson<{ run_id: string; status: string; reason?: string }[]>(listed);
    expect(runs.map((r) => r.run_id).sort()).toEqual([runId, parseJson<{ run_id: string }>(other).run_id].sort());
    const damaged = runs.find((r) => r.run_id === runId);
    expect(damaged?.status).toBe('failed');
    expect(damaged?.reason).toContain(`${journal}, line 4, field "v"`);
    // …and can be removed.
    const removed = await runCli(['rm', runId, '--home', home]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(journal)).toBe(false);
  }, 120_000);
});
