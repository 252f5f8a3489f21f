import { existsSync, lutimesSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LAST_USED, markUsed, pruneServerCache, STALE_AFTER_MS } from '../../../layers/sandbox/kotlin-server/cache-prune.ts';

const HOUR = 3600_000;
const CURRENT = 'aaaaaaaaaaaaaaaa';
const OLD = 'bbbbbbbbbbbbbbbb';
const RECENT = 'cccccccccccccccc';

let base: string;
let root: string;
let outside: string;
const now = Date.now();

/** A build directory as build.ts leaves it, last modified `ageMs` ago. */
function build(name: string, ageMs: number): string {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'server.jar'), 'jar');
  writeFileSync(join(dir, 'server.jsa'), 'archive');
  age(dir, ageMs);
  return dir;
}

function age(path: string, ageMs: number): void {
  const when = new Date(now - ageMs);
  utimesSync(path, when, when);
}

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'pe-kprune-'));
  root = join(base, 'kotlin-server');
  mkdirSync(root);
  outside = join(base, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'precious'), 'keep me');
  age(outside, 10 * STALE_AFTER_MS);
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('pruneServerCache', () => {
  it('removes an old unused build and keeps the current and a recently used one', async () => {
    build(CURRENT, 10 * STALE_AFTER_MS); // the current one is kept however old
    build(OLD, STALE_AFTER_MS + HOUR);
    build(RECENT, 2 * HOUR);
    expect(await pruneServerCache(root, CURRENT, STALE_AFTER_MS, now)).toEqual([OLD]);
    expect(readdirSync(root).sort()).toEqual([CURRENT, RECENT]);
  });

  it('keeps an old directory whose marker says it was used lately', async () => {
    const dir = build(OLD, 3 * STALE_AFTER_MS);
    markUsed(dir);
    age(dir, 3 * STALE_AFTER_MS); // creating the marker touched the directory: age it again
    expect(statSync(join(dir, LAST_USED)).mtimeMs).toBeGreaterThan(now - HOUR);
    expect(await pruneServerCache(root, CURRENT, STALE_AFTER_MS, now)).toEqual([]);
    expect(existsSync(join(dir, 'server.jar'))).toBe(true);
  });

  it('markUsed refreshes an existing marker', () => {
    const dir = build(OLD, 0);
    writeFileSync(join(dir, LAST_USED), '');
    age(join(dir, LAST_USED), 3 * STALE_AFTER_MS);
    markUsed(dir);
    expect(statSync(join(dir, LAST_USED)).mtimeMs).toBeGreaterThan(now - HOUR);
  });

  it('never follows a symbolic link, at the top or inside a removed build', async () => {
    const link = join(root, 'dddddddddddddddd');
    symlinkSync(outside, link);
    lutimesSync(link, new Date(now - 10 * STALE_AFTER_MS), new Date(now - 10 * STALE_AFTER_MS));
    const dir = build(OLD, 0);
    symlinkSync(outside, join(dir, 'escape'));
    age(dir, 10 * STALE_AFTER_MS);
    expect(await pruneServerCache(root, CURRENT, STALE_AFTER_MS, now)).toEqual([OLD]);
    expect(existsSync(link)).toBe(true);
    expect(readdirSync(outside)).toEqual(['precious']);
  });

  it('leaves names it did not make alone and finishes a pruner’s leftovers and stale scratch builds', async () => {
    mkdirSync(join(root, 'notes'));
    age(join(root, 'notes'), 10 * STALE_AFTER_MS);
    build(`.trash-${OLD}-123`, 0);
    build(`.build-${OLD}-x1y2z3`, 2 * STALE_AFTER_MS);
    build(`.build-${RECENT}-a1b2c3`, HOUR); // a concurrent build in progress
    await pruneServerCache(root, CURRENT, STALE_AFTER_MS, now);
    expect(readdirSync(root).sort()).toEqual([`.build-${RECENT}-a1b2c3`, 'notes']);
  });

  it('tolerates a missing root and another run pruning at the same time', async () => {
    expect(await pruneServerCache(join(base, 'none'), CURRENT)).toEqual([]);
    for (const name of [OLD, RECENT, 'eeeeeeeeeeeeeeee']) build(name, 2 * STALE_AFTER_MS);
    const both = await Promise.all([pruneServerCache(root, CURRENT, STALE_AFTER_MS, now), pruneServerCache(root, CURRENT, STALE_AFTER_MS, now)]);
    expect(both.flat().sort()).toEqual([OLD, RECENT, 'eeeeeeeeeeeeeeee'].sort());
    expect(readdirSync(root)).toEqual([]);
  });
});
