import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseJson, runCli } from '../support/cli.ts';

function hasBwrap(): boolean {
  try {
    execFileSync('bwrap', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('polyeval doctor', () => {
  it('reports the isolation level and every language toolchain', async () => {
    const result = await runCli(['doctor', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const report = parseJson<{
      isolation: { level: string; bwrap: boolean; details: string[] };
      toolchains: { language: string; available: boolean; version?: string }[];
    }>(result);
    expect(['bwrap', 'rlimits']).toContain(report.isolation.level);
    expect(report.isolation.level === 'bwrap').toBe(report.isolation.bwrap);
    if (!hasBwrap()) expect(report.isolation.level).toBe('rlimits');
    const languages = report.toolchains.map((t) => t.language);
    expect(languages).toEqual(expect.arrayContaining(['python', 'c', 'cpp', 'kotlin']));
    for (const t of report.toolchains.filter((x) => x.available)) expect(t.version, t.language).toBeTruthy();
  });

  it('prints a readable table', async () => {
    const result = await runCli(['doctor']);
    expect(result.stdout).toMatch(/isolation: (bwrap|rlimits)/);
    expect(result.stdout).toMatch(/^kotlin\s+(yes|NO)/m);
  });
});
