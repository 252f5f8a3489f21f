// Which python3 runs the programs: the first `python3` on PATH that the sandbox uid can reach,
// before /usr/bin/python3. The executor image relies on it (layers/images/Dockerfile, python
// stage): Amazon Linux 2023's own /usr/bin/python3 is 3.9, and the image puts the Python the local
// reference runs (3.11) at /usr/local/bin/python3, ahead of /usr/bin on Lambda's PATH. Here a
// folder holding only a python3 symlink stands in for /usr/local/bin.
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

const root = mkdtempSync('/tmp/pe-python-path-');
chmodSync(root, 0o755); // reachable by the sandbox uid, as /usr/local/bin is
const savedPath = process.env['PATH'];
afterEach(() => {
  process.env['PATH'] = savedPath;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The python runtime as a fresh module (its interpreter is resolved once per module) under `path`. */
async function toolchainWith(path: string) {
  process.env['PATH'] = path;
  vi.resetModules();
  const { pythonRuntime } = await import('#sandbox/languages/python.ts');
  // Python reads neither the context nor the options (its interpreter is the only choice).
  return pythonRuntime.toolchain({} as never, {});
}

describe("the python runtime's interpreter", () => {
  it('is the python3 found first on PATH, not /usr/bin/python3', async () => {
    const bin = join(root, 'local-bin');
    mkdirSync(bin, { mode: 0o755 });
    // The image's link is to /usr/bin/python3.11; the machine's own interpreter by its real name here.
    symlinkSync(realpathSync('/usr/bin/python3'), join(bin, 'python3'));
    const info = await toolchainWith(`${bin}:/usr/bin:/bin`);
    expect(info).toMatchObject({ available: true, compiler: join(bin, 'python3'), version: expect.stringMatching(/^3\.\d+\.\d+/) as unknown });
    expect(info.detail).toBe(`python3 from PATH (${join(bin, 'python3')})`);
  });

  it('falls back to /usr/bin/python3 when PATH has none, and says so', async () => {
    const empty = join(root, 'empty-bin');
    mkdirSync(empty, { mode: 0o755 });
    const info = await toolchainWith(empty);
    expect(info).toMatchObject({ available: true, compiler: '/usr/bin/python3' });
    expect(info.detail).toBe('system python3 (/usr/bin/python3)');
  });
});
