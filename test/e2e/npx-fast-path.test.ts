/**
 * `npx polyeval` in a checkout takes npx's fast path: npx runs node_modules/.bin/polyeval at
 * once instead of first loading the whole installed tree (~0.6-0.75 s of every command here).
 *
 * Why the layout matters (npm 11.19.1, libnpmexec 10.3.2, lib/index.js `exec`, lines 149-178):
 * npx asks `hasPkgBin` whether the package.json at its pkgPath — the ROOT — has a `bin` named
 * like the command. If it has, npx pushes the root as a package to install, runs Arborist
 * `loadActual()` over node_modules and links the bin through its own npx cache; only when it has
 * not does `localFileExists` (lib/file-exists.js) look for node_modules/.bin/<command> and run it.
 * So the root package.json carries no `bin`, and the `polyeval` bin is the workspace
 * packages/cli's (its shim loads dist/polyeval.mjs), which `npm ci` links into node_modules/.bin.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.ts';

const json = (path: string): Record<string, unknown> => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as Record<string, unknown>;

describe('npx polyeval in a checkout', () => {
  it('has no bin in the root package.json and links the workspace bin (libnpmexec: a root bin sends npx down its slow path)', () => {
    const root = json('package.json');
    // A string `bin` is normalised to { [name]: path } too, so any root bin would shadow the fast path.
    expect(root['bin'], 'the root package.json must not have a bin: npx would load the whole tree first (libnpmexec hasPkgBin)').toBeUndefined();
    expect(root['workspaces']).toContain('packages/cli');
    const cli = json('packages/cli/package.json');
    expect(cli['bin']).toEqual({ polyeval: 'polyeval.mjs' });
    expect(statSync(join(ROOT, 'packages', 'cli', 'polyeval.mjs')).mode & 0o111).toBe(0o111);
    // What `npm ci` linked: npx's localFileExists finds exactly this file.
    expect(realpathSync(join(ROOT, 'node_modules', '.bin', 'polyeval'))).toBe(join(ROOT, 'packages', 'cli', 'polyeval.mjs'));
  });

  it("runs the checkout's own node_modules/.bin/polyeval, which answers as dist/polyeval.mjs does", () => {
    // Every node process of the command (npx's own, then polyeval's) appends its script path.
    const dir = mkdtempSync(join(process.env.POLYEVAL_TEST_SCRATCH ?? tmpdir(), 'polyeval-npx-'));
    const hook = join(dir, 'argv.mjs');
    const seen = join(dir, 'argv.txt');
    writeFileSync(hook, `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(seen)}, process.argv[1] + '\\n');\n`);
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
    const npx = spawnSync('npx', ['--no-install', 'polyeval', '--version'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...env, NO_COLOR: '1', NODE_OPTIONS: `--import=${hook}` },
    });
    expect(npx.status, npx.stderr).toBe(0);
    expect(npx.stdout.trim()).toBe(json('package.json')['version']);
    const scripts = readFileSync(seen, 'utf8').trim().split('\n');
    // The fast path: polyeval started from the checkout's bin link, not from a copy npx linked in its cache (~/.npm/_npx).
    expect(scripts).toContain(join(ROOT, 'node_modules', '.bin', 'polyeval'));
    expect(scripts.filter((s) => s.includes('_npx'))).toEqual([]);

    // The shim is the bundle: same output and exit code for bad input as `node dist/polyeval.mjs`.
    const direct = spawnSync(process.execPath, [join(ROOT, 'dist', 'polyeval.mjs'), 'run', '--no-such-flag'], { cwd: ROOT, encoding: 'utf8' });
    const shim = spawnSync(join(ROOT, 'node_modules', '.bin', 'polyeval'), ['run', '--no-such-flag'], { cwd: ROOT, encoding: 'utf8' });
    expect(direct.status).toBe(2);
    expect({ status: shim.status, stdout: shim.stdout, stderr: shim.stderr }).toEqual({ status: direct.status, stdout: direct.stdout, stderr: direct.stderr });
  });
});
