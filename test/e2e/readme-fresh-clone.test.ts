/**
 * The README's step-by-step quick start, run as written, line by line, in a fresh clone of
 * this repository: `npm ci`, the CLI through `npx polyeval`, `npm start`, the CLI again.
 * It catches what tests calling `node dist/polyeval.mjs` cannot: a rebuild that leaves the
 * bundle without its executable bit (`sh: polyeval: Permission denied` from npx).
 *
 * The clone is of the committed HEAD; npm reuses this machine's package cache (~/.npm).
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.ts';

/** The commands of the first `sh` block after the "Step by step" line, comments removed. */
function stepByStep(readme: string): string[] {
  const from = readme.indexOf('Step by step');
  expect(from, 'README has a "Step by step" quick start').toBeGreaterThan(0);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(from))?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line && !line.startsWith('#'));
}

/** Runs one line in a shell as a new user's terminal would; killed (with its group) after `limitMs`. */
function sh(command: string, cwd: string, limitMs = 1_200_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // A user's shell, not this test runner's: no npm_* variables inherited from `npx vitest`
    // or `npm test`, and the clone's own ./.polyeval.
    const env: NodeJS.ProcessEnv = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'POLYEVAL_HOME' && k !== 'INIT_CWD'),
    );
    const child = spawn('sh', ['-c', command], { cwd, env: { ...env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      stderr += `\n[test] killed after ${limitMs} ms`;
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, limitMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('README in a fresh clone', () => {
  it('runs the step-by-step quick start in order, as written', async () => {
    const commands = stepByStep(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(commands[0]).toBe('npm ci');
    const start = commands.indexOf('npm start');
    expect(start, 'npm start is in the steps').toBeGreaterThan(0);
    expect(commands.slice(1, start).some((c) => c.startsWith('npx polyeval '))).toBe(true);
    expect(commands.slice(start + 1).some((c) => c.startsWith('npx polyeval '))).toBe(true);

    const dir = mkdtempSync(join(process.env.POLYEVAL_TEST_SCRATCH ?? tmpdir(), 'polyeval-clone-'));
    try {
      execFileSync('git', ['clone', '--quiet', ROOT, join(dir, 'polyeval')], { stdio: 'pipe' });
      const clone = join(dir, 'polyeval');
      for (const command of commands) {
        const result = await sh(command, clone);
        expect(result.code, `\`${command}\` in a fresh clone:\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-4000)}`).toBe(0);
        expect(result.stderr, command).not.toContain('Permission denied');
        expect(result.stderr, command).not.toContain('NodeVersionSupportWarning');
        if (command === 'npm start') {
          expect(result.stdout).toMatch(/^suite\s+model\s+items\s+verdicts\s+headline\s+95% CI\s+report$/m);
          expect(result.stdout).not.toMatch(/ (WA|RE|CE|TLE|MLE|OLE|SE) \d/);
        }
        if (command.startsWith('npx polyeval list runs')) expect(result.stdout.match(/\scompleted\s/g)).toHaveLength(5);
        if (command.startsWith('npx polyeval leaderboard'))
          expect(result.stdout).toMatch(/^sample\/abricot\b.*\s+reference\s+pearson\/subtask=abstractness\s+1\.000/m);
      }
      expect(statSync(join(clone, 'dist', 'polyeval.mjs')).mode & 0o111).toBe(0o111);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 2_400_000);
});
