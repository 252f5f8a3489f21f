// The pieces of the security model that are plain functions or one binary: where the
// supervisor comes from, what it can confine here, what each level exposes, and the
// after-item check of executor containers.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exposures, isolationLabel, probeConfinement } from '#sandbox/isolation.ts';
import { confinementArgs } from '#sandbox/sandbox-process.ts';
import { buildSupervisor, ensureSupervisor, supervisorName } from '#sandbox/supervisor.ts';
import { changes, ItemWatch, snapshot, survivors } from '#sandbox/integrity.ts';
import { scratch } from './helpers.ts';

const dirs = scratch('confinement');
afterAll(() => rmSync(dirs.root, { recursive: true, force: true }));

describe('the supervisor binary', () => {
  it('is taken prebuilt from the image directory without compiling anything', async () => {
    const image = join(dirs.root, 'image');
    mkdirSync(image);
    await buildSupervisor(image);
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent'; // no gcc reachable
    try {
      expect(await ensureSupervisor(join(dirs.root, 'writable'), image)).toBe(join(image, supervisorName()));
    } finally {
      process.env.PATH = saved;
    }
    expect(existsSync(join(dirs.root, 'writable', supervisorName()))).toBe(false);
  }, 120_000);

  it('reports seccomp and Landlock on this kernel', async () => {
    const confine = await probeConfinement(join(dirs.root, 'image', supervisorName()));
    expect(confine.seccomp).toBe(true);
    expect(confine.landlock).toBeGreaterThanOrEqual(1);
  });
});

describe('what a level exposes', () => {
  const user = { root: false, nonDumpable: false };
  it.each([
    ['bwrap', { seccomp: false, landlock: 0 }, user, []],
    ['rlimits', { seccomp: false, landlock: 0 }, user, ['credentials', 'files', 'network']],
    ['rlimits', { seccomp: true, landlock: 0 }, user, ['credentials', 'files']],
    ['rlimits', { seccomp: true, landlock: 0 }, { root: false, nonDumpable: true }, ['files']],
    ['rlimits', { seccomp: true, landlock: 0 }, { root: true, nonDumpable: false }, ['files']],
    ['rlimits', { seccomp: false, landlock: 3 }, user, ['credentials', 'network']],
    ['rlimits', { seccomp: true, landlock: 7 }, user, []],
  ] as const)('%s with %o as %o exposes %o', (level, confine, harness, expected) => {
    expect(exposures(level, confine, harness)).toEqual(expected);
  });

  it('labels what was applied', () => {
    expect(isolationLabel('rlimits', { seccomp: true, landlock: 7 })).toBe('rlimits+seccomp+landlock');
    expect(isolationLabel('bwrap', { seccomp: false, landlock: 0 })).toBe('bwrap');
  });

  it('lets a program write only its working directory (and bubblewrap private /tmp)', () => {
    const spec = { workDir: '/w/run-1', readOnly: ['/b/build'] };
    expect(confinementArgs({ level: 'rlimits', bwrapPath: '', dropTo: undefined, confine: { seccomp: true, landlock: 7 } }, spec)).toEqual([
      'sl',
      '-r',
      '/b/build',
      '-w',
      '/w/run-1',
    ]);
    expect(confinementArgs({ level: 'bwrap', bwrapPath: '', dropTo: undefined, confine: { seccomp: true, landlock: 7 } }, spec)).toEqual([
      'sl',
      '-r',
      '/b/build',
      '-w',
      '/w/run-1',
      '-w',
      '/tmp',
    ]);
    expect(confinementArgs({ level: 'rlimits', bwrapPath: '', dropTo: undefined, confine: { seccomp: false, landlock: 0 } }, spec)).toEqual(['-']);
  });
});

describe('the after-item check', () => {
  it('sees new, changed and removed files but not the item directories or the harness cache additions', () => {
    const root = join(dirs.root, 'tmp');
    mkdirSync(join(root, 'cache'), { recursive: true });
    mkdirSync(join(root, 'work'));
    writeFileSync(join(root, 'cache', 'stdlib.jar'), 'jar');
    writeFileSync(join(root, 'old'), 'x');
    const watch = new ItemWatch({ roots: [root], exclude: [join(root, 'work')], allowNewUnder: [join(root, 'cache')], uid: 4_000_000 });
    writeFileSync(join(root, 'work', 'out.txt'), 'ok');
    writeFileSync(join(root, 'cache', 'pch'), 'new harness file');
    expect(watch.check()).toEqual({ clean: true, survivors: [], changes: [] });
    writeFileSync(join(root, 'cache', 'stdlib.jar'), 'tampered!');
    writeFileSync(join(root, 'planted'), 'x');
    rmSync(join(root, 'old'));
    const report = watch.check();
    expect(report.clean).toBe(false);
    expect(report.changes.sort()).toEqual([`changed ${join(root, 'cache', 'stdlib.jar')}`, `new ${join(root, 'planted')}`, `removed ${join(root, 'old')}`]);
    expect(changes(snapshot([root]), snapshot([root]))).toEqual([]);
  });

  it('finds a process of the uid that is neither us nor our descendant', async () => {
    const uid = 65534;
    const orphan = spawn('/usr/bin/setsid', ['-f', '/usr/bin/sleep', '30'], { uid, gid: uid, stdio: 'ignore' });
    await new Promise((r) => orphan.on('close', r));
    await new Promise((r) => setTimeout(r, 300));
    const found = survivors(uid).filter((p) => p.command === 'sleep');
    expect(found.length).toBeGreaterThan(0);
    for (const { pid } of found) process.kill(pid, 'SIGKILL');
    const child = spawn('/usr/bin/sleep', ['30'], { uid, gid: uid, stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 300));
    expect(survivors(uid).map((p) => p.pid)).not.toContain(child.pid);
    child.kill('SIGKILL');
    expect(readdirSync(dirs.root)).toContain('image');
  });
});
