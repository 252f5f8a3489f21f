/**
 * The README cannot drift from the CLI: every `npx polyeval …` command it shows names a real
 * command and real flags, and the quick start's main job (`npm start`) works.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, tempHome } from '../support/cli.ts';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const commands = [...readme.matchAll(/npx polyeval ([a-z]+)([^\n`|]*)/g)].map((m) => ({ command: m[1] as string, rest: m[2] as string }));

describe('README', () => {
  it('shows both quick-start commands', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });

  it.each([...new Set(commands.map((c) => c.command))])('documents `polyeval %s` with flags the CLI accepts', async (command) => {
    const help = await runCli([command, '--help']);
    expect(help.code, `polyeval ${command} --help: ${help.stderr}`).toBe(0);
    const flags = new Set(commands.filter((c) => c.command === command).flatMap((c) => [...c.rest.matchAll(/(?:^|\s)(--?[a-z][a-z-]*)/g)].map((m) => m[1] as string)));
    for (const flag of flags) expect(help.stdout, `${command} ${flag}`).toContain(flag);
  });

  it('runs the main job: every bundled suite with the reference model, tables and HTML reports', async () => {
    const home = tempHome();
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('npm', ['start', '--silent'], { cwd: ROOT, env: { ...process.env, POLYEVAL_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(result.code, result.stderr).toBe(0);
    for (const suite of ['abricot', 'rocode', 'kotlin-humaneval']) expect(result.stdout).toMatch(new RegExp(`^${suite} · reference · run `, 'm'));
    expect(result.stdout).not.toMatch(/ (WA|RE|CE|TLE|MLE|OLE|SE) \d/);
    const reports = readdirSync(join(home, 'store', 'reports'));
    expect(reports.length).toBe(5); // abricot, rocode × 3 languages, kotlin-humaneval
    for (const r of reports) expect(existsSync(join(home, 'store', 'reports', r))).toBe(true);
  }, 900_000);
});
