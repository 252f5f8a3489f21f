/**
 * A local sweep (several -m × several -b) killed midway — one cell after another, or with its
 * cells running at the same time (`--concurrency`), by SIGKILL or SIGINT — and resumed with
 * `--resume <sweep-id>` ends with every run completed, exactly one record per item, and one
 * leaderboard of what it ran. A cell that fails does not lose the others' work.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson, runCli, startCli, tempHome } from '../support/cli.ts';

/** An ABRICOT file we make up: same ids in both datasets, different sentences. */
function writeDataset(file: string, variant: number, ROWS: number): void {
  const words = ['casa', 'sole', 'libro', 'strada', 'idea', 'virtù', 'fiume', 'sogno'];
  const lines: string[] = [];
  for (let i = 0; i < ROWS; i++) {
    const word = words[(i + variant) % words.length] as string;
    lines.push(
      JSON.stringify({
        id: `s${i}`,
        target_token: word,
        text: `Versione ${variant}, frase ${i}: la parola ${word} compare qui.`,
        abs_mean: ((i * (variant + 2)) % 97) / 97,
        inc_mean: (i % 89) / 89,
      }),
    );
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** A replay model that answers 3 everywhere except on every fifth item. */
function writeReplay(file: string, ROWS: number): void {
  const lines: string[] = [];
  for (let i = 0; i < ROWS; i++) {
    for (const subtask of ['abstractness', 'inclusiveness'])
      lines.push(JSON.stringify({ task_id: `${subtask}/s${i}`, completion: String(i % 5 === 0 ? 1 + (i % 5) : 3) }));
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

function itemsPerRun(home: string): Map<string, number> {
  const out = new Map<string, number>();
  const runs = join(home, 'store', 'runs');
  let names: string[] = [];
  try {
    names = readdirSync(runs);
  } catch {
    return out;
  }
  for (const run of names) {
    let count = 0;
    try {
      for (const task of readdirSync(join(runs, run, 'items'))) count += readdirSync(join(runs, run, 'items', task)).filter((f) => f.endsWith('.json')).length;
    } catch {
      // not yet created
    }
    out.set(run, count);
  }
  return out;
}

const total = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);

/** Runs the sweep, kills it with `signal` once `killWhen` holds, resumes it, and checks the outcome. */
async function killAndResume(opts: {
  rows: number;
  flags: string[];
  signal: NodeJS.Signals;
  killWhen: (perRun: Map<string, number>, items: number) => boolean;
}): Promise<void> {
  const ITEMS = opts.rows * 2; // two subtasks per row
  const home = tempHome();
  const [a, b, replay] = [join(home, 'a.jsonl'), join(home, 'b.jsonl'), join(home, 'replay.jsonl')];
  writeDataset(a, 0, opts.rows);
  writeDataset(b, 1, opts.rows);
  writeReplay(replay, opts.rows);
  const args = ['run', '-b', `abricot:${a}`, '-b', `abricot:${b}`, '-m', 'reference', '-m', `replay:${replay}`, ...opts.flags, '--home', home];
  const child = startCli(args);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (opts.killWhen(itemsPerRun(home), ITEMS)) {
        clearInterval(timer);
        child.kill(opts.signal);
        resolve();
      }
    }, 20);
    child.on('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`sweep finished (exit ${code}) before it could be killed:\n${stderr}`));
    });
  });
  await new Promise((r) => child.once('close', r));
  const sweepId = /sweep (sweep-\S+)/.exec(stderr)?.[1];
  expect(sweepId, stderr).toBeDefined();
  expect(total(itemsPerRun(home))).toBeLessThan(ITEMS * 4);

  const resumed = await runCli(['run', '--resume', sweepId as string, ...opts.flags, '--home', home]);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stdout.match(/^leaderboard of sweep /gm)).toHaveLength(1);
  // Both datasets × both models, per subtask: 8 leaderboard lines.
  expect(resumed.stdout.match(/pearson\/subtask=(abstractness|inclusiveness)\s+-?\d\.\d{3}\s+\[/g)?.length).toBeGreaterThanOrEqual(8);

  const runs = parseJson<{ run_id: string; status: string; recorded: number; items: number; model: string }[]>(
    await runCli(['list', 'runs', '--json', '--home', home]),
  );
  expect(runs).toHaveLength(4);
  for (const run of runs) expect(run).toMatchObject({ status: 'completed', recorded: ITEMS, items: ITEMS });
  expect(new Set(runs.map((r) => r.model)).size).toBe(2);
  for (const count of itemsPerRun(home).values()) expect(count).toBe(ITEMS);

  const dupes = await runCli([
    'query',
    "SELECT run_id, count(*) AS rows, count(DISTINCT task_id || '#' || CAST(sample AS VARCHAR)) AS distinct_items FROM records GROUP BY run_id",
    '--format',
    'json',
    '--home',
    home,
  ]);
  const perRun = parseJson<{ rows: number; distinct_items: number }[]>(dupes);
  expect(perRun).toHaveLength(4);
  for (const row of perRun) expect(row).toMatchObject({ rows: ITEMS, distinct_items: ITEMS });

  // Resuming a finished sweep runs nothing again and answers with the same shape.
  const again = parseJson<{ sweep_id: string; runs: { run_id: string; status: string }[]; leaderboard: { model: string }[] }>(
    await runCli(['run', '--resume', sweepId as string, '--json', '-q', '--home', home]),
  );
  expect(again.sweep_id).toBe(sweepId);
  expect(again.runs.map((r) => r.run_id).sort()).toEqual(runs.map((r) => r.run_id).sort());
  expect(again.leaderboard.length).toBe(8);
  expect(total(itemsPerRun(home))).toBe(ITEMS * 4);
}

describe('local sweep', () => {
  it('resumes a two-model × two-benchmark sweep killed midway: one record per item, one leaderboard', async () => {
    // Kill once the first run is done and the second is under way: cells on both sides of the cut.
    await killAndResume({ rows: 600, flags: ['--jobs', '1'], signal: 'SIGKILL', killWhen: (_, items) => total(_) >= items + 100 });
  }, 300_000);

  it.each(['SIGINT', 'SIGKILL'] as const)(
    'resumes a sweep whose cells run at the same time (--concurrency), killed with %s while two runs were in progress',
    async (signal) => {
      // Killed while two runs are part-way at once: the cut goes through concurrent cells.
      const partWay = (perRun: Map<string, number>, items: number): boolean => [...perRun.values()].filter((n) => n > 0 && n < items).length >= 2;
      await killAndResume({ rows: 300, flags: ['--concurrency', '8', '--jobs', '1'], signal, killWhen: partWay });
    },
    300_000,
  );
});

describe('a sweep with a failing cell', () => {
  it("keeps the other cells' work, names the failure, exits 2, and resumes once the file is fixed", async () => {
    const home = tempHome();
    const [good, bad] = [join(home, 'good.jsonl'), join(home, 'bad.jsonl')];
    writeDataset(good, 0, 40);
    writeFileSync(
      bad,
      `${JSON.stringify({ id: 'x1', target_token: 'casa', text: 'Una casa.', abs_mean: 0.5, inc_mean: 0.5 })}\n${JSON.stringify({ id: 'x2', text: 'Manca la parola.', abs_mean: 0.5, inc_mean: 0.5 })}\n`,
    );
    const args = ['run', '-b', `abricot:${bad}`, '-b', `abricot:${good}`, '-m', 'reference', '--concurrency', '4', '--home', home];
    const failed = await runCli(args);
    expect(failed.code, failed.stderr).toBe(2);
    expect(failed.stderr).toMatch(/cell 1 \(abricot:.*bad\.jsonl × reference\) failed: .*bad\.jsonl.*line 2/);
    expect(failed.stderr).toMatch(/1 cell failed .* continue with: polyeval run --resume sweep-/);
    expect(failed.stdout).toMatch(/^leaderboard of sweep /m);
    const runs = parseJson<{ status: string; recorded: number; items: number }[]>(await runCli(['list', 'runs', '--json', '--home', home]));
    expect(runs).toEqual([expect.objectContaining({ status: 'completed', recorded: 80, items: 80 })]);

    const sweepId = /sweep (sweep-\S+)/.exec(failed.stderr)?.[1] as string;
    writeDataset(bad, 1, 10);
    const resumed = parseJson<{ runs: { status: string; items: number }[]; failed?: unknown }>(
      await runCli(['run', '--resume', sweepId, '--json', '-q', '--home', home]),
    );
    expect(resumed.failed).toBeUndefined();
    expect(resumed.runs.map((r) => [r.status, r.items])).toEqual([
      ['completed', 20],
      ['completed', 80],
    ]);
  }, 120_000);
});
