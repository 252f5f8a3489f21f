// A local run asks git for the manifest's `code` without blocking, both commands at once
// (codeVersionSoon, started while the benchmark loads): it must record exactly what the
// blocking codeVersion records, in a clean checkout, a dirty one, and outside git.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
});
