/**
 * `polyeval rm` and `polyeval gc` free space and say how much; other runs stay intact.
 */
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson, runCli, tempHome } from '../support/cli.ts';

async function run(home: string): Promise<string> {
  return parseJson<{ run_id: string }>(await runCli(['run', '-b', 'sample/abricot', '-m', 'reference', '--json', '-q', '--home', home])).run_id;
}

describe('polyeval rm and gc', () => {
  it('rm deletes one run everywhere and prints the space freed; the other run stays', async () => {
    const home = tempHome();
    const [gone, kept] = [await run(home), await run(home)];
    const result = await runCli(['rm', gone, '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`removed ${gone} \\(\\d+\\.\\d KB\\)\\nfreed \\d+\\.\\d KB`));
    const runs = parseJson<{ run_id: string }[]>(await runCli(['list', 'runs', '--json', '--home', home]));
    expect(runs.map((r) => r.run_id)).toEqual([kept]);
    expect(readdirSync(join(home, 'store', 'runs'))).toEqual([kept]);
    expect(readdirSync(join(home, 'store', 'reports')).filter((f) => f.startsWith(gone))).toEqual([]);
    const metrics = parseJson<{ run_id: string }[]>(await runCli(['query', 'SELECT DISTINCT run_id FROM metrics', '--format', 'json', '--home', home]));
    expect(metrics).toEqual([{ run_id: kept }]);
    expect((await runCli(['report', kept, '--home', home])).code).toBe(0);
    const again = await runCli(['rm', gone, '--home', home]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`no run "${gone}"`);
  });

  it('rm with an id the home does not have deletes nothing, whatever the order of the ids', async () => {
    const home = tempHome();
    const kept = await run(home);
    const result = await runCli(['rm', kept, 'no-such-run', '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no run "no-such-run"');
    const runs = parseJson<{ run_id: string }[]>(await runCli(['list', 'runs', '--json', '--home', home]));
    expect(runs.map((r) => r.run_id)).toEqual([kept]);
    expect((await runCli(['report', kept, '--home', home])).code).toBe(0);
  });

  it('gc removes runs older than a number of days and shrinks the compile cache to a size', async () => {
    const home = tempHome();
    const id = await run(home);
    const young = parseJson<{ runs: { removed: unknown[] } }>(await runCli(['gc', '--older-than', '1', '--json', '--home', home]));
    expect(young.runs.removed).toEqual([]);

    const cache = join(home, 'sandbox-cache');
    const builds = join(cache, 'builds');
    for (let i = 0; i < 4; i++) {
      mkdirSync(join(builds, `build${i}`), { recursive: true });
      writeFileSync(join(builds, `build${i}`, 'program'), Buffer.alloc(1024 * 1024));
      const t = new Date(Date.UTC(2026, 0, 1 + i));
      utimesSync(join(builds, `build${i}`), t, t);
    }
    const result = await runCli(['gc', '--older-than', '0', '--cache-max', '2.5M', '--cache-dir', cache, '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('runs older than 0 days: removed 1');
    expect(result.stdout).toContain('removed 2 builds (2.0 MB); 2 kept, 2.0 MB');
    expect(result.stdout).toMatch(/freed 2\.\d MB/);
    expect(readdirSync(builds).sort()).toEqual(['build2', 'build3']); // the oldest went first
    expect(existsSync(join(home, 'store', 'runs', id))).toBe(false);
    const bad = await runCli(['gc', '--cache-max', 'lots', '--home', home]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--cache-max lots: must be a size');
    const aFile = join(home, 'not-a-cache');
    writeFileSync(aFile, 'x');
    const notADir = await runCli(['gc', '--cache-max', '1M', '--cache-dir', aFile, '--home', home]);
    expect(notADir.code).toBe(2);
    expect(notADir.stderr).toContain(`--cache-dir ${aFile} is a file`);
  });
});
