// Python's syntax check through the long-lived checker decides exactly what the one-shot
// check (a sandboxed interpreter per source) decides — same CE, same diagnostics — without a
// process per source, and a checker that dies or cannot answer hands the source to the
// one-shot check instead of deciding it.
import { readlinkSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { giveToSandbox } from '#sandbox/files.ts';
import { resolveIsolation } from '#sandbox/isolation.ts';
import { pythonRuntime } from '#sandbox/languages/python.ts';
import { createRuntimeContext } from '#sandbox/runtime-context.ts';
import type { RuntimeContext } from '#sandbox/runtime.ts';
import { ensureSharedDir, ensureSupervisor } from '#sandbox/supervisor.ts';
import { processesMentioning, scratch } from './helpers.ts';

const dirs = scratch('py-checker');
let withChecker: RuntimeContext;
let oneShotOnly: RuntimeContext;
let oneShots = 0;

beforeAll(async () => {
  await ensureSharedDir(dirs.cacheDir);
  await ensureSharedDir(dirs.workRoot);
  const supervisor = await ensureSupervisor(dirs.cacheDir);
  const iso = await resolveIsolation('auto', { supervisor });
  const ctx = createRuntimeContext(iso, supervisor, { cacheDir: dirs.cacheDir, workRoot: dirs.workRoot, kotlinMode: 'warm' });
  withChecker = { ...ctx, sandboxed: (spec) => ((oneShots += 1), ctx.sandboxed(spec)) };
  oneShotOnly = { cacheDir: ctx.cacheDir, kotlinMode: ctx.kotlinMode, programWriters: ctx.programWriters, sandboxed: ctx.sandboxed };
  await pythonRuntime.init(ctx);
}, 120_000);

afterAll(async () => {
  await pythonRuntime.close?.();
  await rm(dirs.root, { recursive: true, force: true });
});

/** Compiles `source` (written as these bytes) with the context's check. */
async function check(ctx: RuntimeContext, source: string | Buffer): Promise<{ ok: boolean; diagnostics: string }> {
  const buildDir = await mkdtemp(join(dirs.workRoot, 'build-'));
  try {
    await writeFile(join(buildDir, 'main.py'), source);
    await giveToSandbox(buildDir);
    const { ok, diagnostics } = await pythonRuntime.compile(ctx, buildDir, {});
    return { ok, diagnostics };
  } finally {
    await rm(buildDir, { recursive: true, force: true });
  }
}

const SOURCES: [string, string | Buffer][] = [
  ['a valid program', 'def dublu(n):\n    return 2 * n\n\nassert dublu(2) == 4\n'],
  ['an unclosed parenthesis', 'def f(:\n    pass\n'],
  ['a bad indentation', 'def f():\nreturn 1\n'],
  ['tabs and spaces mixed', 'def f():\n\tif True:\n        return 1\n\treturn 2\n'],
  ['a NUL byte', 'x = 1\u0000\n'],
  ['a byte-order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('print(1)\n')])],
  ['CRLF line ends and an error on line 3', 'a = 1\r\nb = 2\r\nc = = 3\r\n'],
  ['a lone CR before an error', 'a = 1\rb = (\n'],
  ['a return outside a function', 'return 5\n'],
  ['a break outside a loop, CRLF line ends', 'x = 1\r\nif x:\r\n    break\r\n'],
  ['a nonlocal at module level', 'def f():\n    pass\nnonlocal y\n'],
  ['an invalid escape (a warning, not an error)', 'x = "\\d"\n'],
  ['too many nested parentheses', `x = ${'('.repeat(300)}1${')'.repeat(300)}\n`],
  ['a program that never ends if run', 'while True:\n    pass\n'],
];

describe('the Python syntax check', () => {
  it.each(SOURCES)('decides %s exactly as the one-shot check does, without a process of its own', async (_what, source) => {
    const before = oneShots;
    const expected = await check(oneShotOnly, source);
    const actual = await check(withChecker, source);
    expect(actual).toEqual(expected);
    expect(oneShots - before).toBe(0);
  });

  it('hands sources to the one-shot check while its checker is killed, and answers alike', async () => {
    await check(withChecker, 'print(1)\n');
    // This file's checkers only (other executors on the machine run services too, Python's zygotes among them).
    const checkers = processesMentioning('service-').filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`).startsWith(dirs.workRoot);
      } catch {
        return false;
      }
    });
    expect(checkers.length).toBeGreaterThan(0);
    for (const pid of checkers) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone with its group
      }
    }
    for (const [, source] of SOURCES.slice(0, 4)) expect(await check(withChecker, source)).toEqual(await check(oneShotOnly, source));
  });

  it('leaves no checker running once the runtime is closed', async () => {
    await check(withChecker, 'print(1)\n');
    await pythonRuntime.close?.();
    await new Promise((r) => setTimeout(r, 500));
    expect(processesMentioning(dirs.workRoot)).toEqual([]);
  });
});
