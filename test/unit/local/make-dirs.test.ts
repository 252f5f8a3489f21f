// Folders a user names (--home, --output): made with their parents, and a folder that cannot be
// made is an error naming it, at once. Node's own recursive mkdir never returns under /proc.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '#core/errors.ts';
import { makeDirs, makeDirsSync } from '#local/make-dirs.ts';

const root = mkdtempSync(join(tmpdir(), 'pe-make-dirs-'));

describe.each([
  ['makeDirs', (dir: string) => makeDirs(dir)],
  ['makeDirsSync', (dir: string) => Promise.resolve().then(() => makeDirsSync(dir))],
])('%s', (name, make) => {
  it('makes a folder and its missing parents, and is a no-op when it exists', async () => {
    const dir = join(root, name, 'a', 'b', 'c');
    await make(dir);
    await make(dir);
    expect(existsSync(dir)).toBe(true);
  });

  it('fails at once, naming the folder, under /proc (where Node recursive mkdir loops forever)', async () => {
    const error = await make('/proc/polyeval-missing/reports').catch((err: unknown) => err);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toBe('cannot create folder /proc/polyeval-missing (ENOENT)');
  }, 5_000);

  it('names a parent that is a file', async () => {
    const file = join(root, `${name}-file`);
    writeFileSync(file, 'x');
    await expect(make(join(file, 'sub'))).rejects.toThrow(`cannot create folder ${join(file, 'sub')} (ENOTDIR)`);
  });
});
