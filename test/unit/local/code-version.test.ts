// A local run asks git for the manifest's `code` without blocking, both commands at once
// (codeVersionSoon, started while the benchmark loads): it must record exactly what the
// blocking codeVersion records, in a clean checkout, a dirty one, and outside git — and
// really not block: the event loop turns while git works, and the two git commands overlap.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codeVersion, codeVersionSoon } from '#app/shared/versions.ts';

const dir = mkdtempSync(join(tmpdir(), 'polyeval-code-version-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: dir, stdio: 'pipe' });

describe('codeVersionSoon', () => {
  it('records what codeVersion records: outside git, clean, dirty', async () => {
    writeFileSync(join(dir, 'package.json'), '{"version":"9.8.7"}\n');
    expect(await codeVersionSoon(dir)).toEqual(codeVersion(dir));
    expect((await codeVersionSoon(dir)).version).toBe('9.8.7');

    git('init', '-q');
    git('add', 'package.json');
    git('commit', '-qm', 'first');
    const clean = await codeVersionSoon(dir);
    expect(clean).toEqual(codeVersion(dir));
    expect(clean).toMatchObject({ revision: expect.stringMatching(/^[0-9a-f]{40}$/), dirty: false });

    writeFileSync(join(dir, 'package.json'), '{"version":"9.8.8"}\n');
    const dirty = await codeVersionSoon(dir);
    expect(dirty).toEqual(codeVersion(dir));
    expect(dirty).toMatchObject({ version: '9.8.8', dirty: true });
  });

  it('does not block: the event loop turns while git works, and its two commands run at the same time', async () => {
    // A `git` first on PATH that logs its start and end around a 1 s pause, then runs the real git.
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const bin = join(dir, 'slow-bin');
    const log = join(dir, 'git.log');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho start >> '${log}'\nsleep 1\n'${realGit}' "$@"\nrc=$?\necho end >> '${log}'\nexit $rc\n`);
    chmodSync(join(bin, 'git'), 0o755);
    const expected = codeVersion(dir);
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path ?? ''}`;
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 20);
    try {
      const code = await codeVersionSoon(dir);
      expect(code).toEqual(expected);
    } finally {
      clearInterval(timer);
      process.env.PATH = path;
    }
    // A blocking git (execFileSync) would let no timer fire before the answer.
    expect(ticks).toBeGreaterThan(5);
    // One after the other would log start, end, start, end.
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual(['start', 'start', 'end', 'end']);
  });
});
