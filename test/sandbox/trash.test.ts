// The executor's trash (layers/sandbox/trash.ts): a finished directory leaves its place at
// once and is removed in the background; `empty` leaves nothing behind.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Trash, trashOutOfReach } from '#sandbox/trash.ts';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function workRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'pe-trash-'));
  roots.push(root);
  return root;
}

/** A finished test directory: files and a subdirectory, as a program leaves them. */
function finished(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'sub'), { recursive: true });
  writeFileSync(join(dir, 'out'), 'x');
  writeFileSync(join(dir, 'sub', 'file'), 'y');
  return dir;
}

describe('the trash', () => {
  it('moves a directory out of its place at once and removes it in the background', async () => {
    const root = workRoot();
    const trash = new Trash(root);
    const dirs = Array.from({ length: 20 }, (_, i) => finished(root, `run-${i}`));
    for (const dir of dirs) trash.discard(dir);
    expect(dirs.filter((d) => existsSync(d))).toEqual([]);
    await trash.empty();
    expect(readdirSync(root)).toEqual([]);
  });

  it('takes a path already gone as removed', async () => {
    const root = workRoot();
    const trash = new Trash(root);
    expect(() => trash.discard(join(root, 'never-made'))).not.toThrow();
    await trash.empty();
    expect(readdirSync(root)).toEqual([]);
  });

  it('keeps what it holds where no program of the sandbox uid can reach it (0700, ours)', async () => {
    const root = workRoot();
    const trash = new Trash(root);
    trash.discard(finished(root, 'run-a'));
    const [made] = readdirSync(root);
    expect(made).toMatch(/^trash-/u);
    expect(statSync(join(root, made as string)).mode & 0o777).toBe(0o700);
    await trash.empty();
  });

  it('throws when a directory cannot be moved, so the caller fails the sample (SE) as before', async () => {
    const root = workRoot();
    const trash = new Trash(root);
    // A rename cannot cross file systems: /proc is another one.
    expect(() => trash.discard('/proc/self')).toThrow();
    await trash.empty();
  });

  it("removes the trash a killed run left (its pid gone), never a live process's", async () => {
    const root = workRoot();
    const gone = spawnSync('true').pid; // reaped: no process has this pid now
    const stale = join(root, `trash-${gone}-Ab12Cd`);
    const live = join(root, `trash-${process.ppid}-Ef34Gh`);
    for (const dir of [stale, live]) finished(dir, '1');
    const trash = new Trash(root);
    trash.discard(finished(root, 'run-a'));
    await trash.empty();
    expect(readdirSync(root)).toEqual([`trash-${process.ppid}-Ef34Gh`]);
    expect(existsSync(join(live, '1', 'out'))).toBe(true);
  });

  it('is used only where no program can read it: not at the harness uid without Landlock (Lambda)', () => {
    const confine = (landlock: number) => ({ seccomp: true, landlock });
    expect(trashOutOfReach({ level: 'rlimits', dropTo: undefined, confine: confine(0) } as Parameters<typeof trashOutOfReach>[0])).toBe(false);
    expect(trashOutOfReach({ level: 'rlimits', dropTo: undefined, confine: confine(3) } as Parameters<typeof trashOutOfReach>[0])).toBe(true);
    expect(trashOutOfReach({ level: 'rlimits', dropTo: 65534, confine: confine(0) } as Parameters<typeof trashOutOfReach>[0])).toBe(true);
    expect(trashOutOfReach({ level: 'bwrap', dropTo: undefined, confine: confine(0) } as Parameters<typeof trashOutOfReach>[0])).toBe(true);
  });
});
