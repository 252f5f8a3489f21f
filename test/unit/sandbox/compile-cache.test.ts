import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CompileCache } from '#sandbox/compile-cache.ts';
import type { CompileResult, LanguageRuntime, RuntimeContext } from '#sandbox/runtime.ts';

const root = mkdtempSync(join(process.env.POLYEVAL_TEST_SCRATCH ?? tmpdir(), 'compile-cache-'));
chmodSync(root, 0o755); // the sandbox uid must reach builds
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A runtime whose compiler answers from a script, counting its calls. */
function scriptedRuntime(answers: CompileResult[]): LanguageRuntime & { calls: number } {
  const runtime = {
    id: 'scripted',
    sourceFile: 'main.txt',
    calls: 0,
    init: async () => {},
    toolchain: async () => ({ language: 'scripted', available: true }),
    cacheKey: async () => 'scripted 1',
    compile: async () => answers[Math.min(runtime.calls++, answers.length - 1)] as CompileResult,
    runCommand: () => ({ argv: [], readOnly: [], addressSpaceMb: 0, processes: 1 }),
    unitTestProgram: () => '',
    isOutOfMemory: () => false,
  };
  return runtime as unknown as LanguageRuntime & { calls: number };
}

describe('compile cache', () => {
  it('compiles an identical source once, failures included', async () => {
    const cache = new CompileCache(join(root, 'a'), {} as RuntimeContext);
    const runtime = scriptedRuntime([{ ok: false, diagnostics: 'main.txt:1: error' }]);
    const first = await cache.build(runtime, 'x');
    const second = await cache.build(runtime, 'x');
    expect([first.cached, second.cached, second.ok, second.diagnostics]).toEqual([false, true, false, 'main.txt:1: error']);
    expect(runtime.calls).toBe(1);
  });

  it('never keeps a compilation that ran out of wall-clock time: the next build compiles again', async () => {
    const cache = new CompileCache(join(root, 'b'), {} as RuntimeContext);
    const runtime = scriptedRuntime([
      { ok: false, diagnostics: 'compilation exceeded its time limit', timedOut: true },
      { ok: true, diagnostics: '' },
    ]);
    const slow = await cache.build(runtime, 'y');
    expect(slow.ok).toBe(false);
    const again = await cache.build(runtime, 'y');
    expect([again.ok, again.cached, runtime.calls]).toEqual([true, false, 2]);
  });

  it('never keeps a compilation whose compiler was killed by a signal: the next build compiles again', async () => {
    const cache = new CompileCache(join(root, 'c'), {} as RuntimeContext);
    const runtime = scriptedRuntime([
      { ok: false, diagnostics: 'compiler killed by SIGKILL (limits exceeded?)\n', killed: true },
      { ok: true, diagnostics: '' },
    ]);
    expect((await cache.build(runtime, 'z')).ok).toBe(false);
    const again = await cache.build(runtime, 'z');
    expect([again.ok, again.cached, runtime.calls]).toEqual([true, false, 2]);
  });

  it('compiles again a killed compilation an older version cached as a failure', async () => {
    const buildsDir = join(root, 'd');
    // what versions before `killed` left in the cache: the kill recorded as the source's CE
    const key = createHash('sha256').update('scripted\0scripted 1\0w').digest('hex').slice(0, 32);
    mkdirSync(join(buildsDir, key), { recursive: true });
    writeFileSync(
      join(buildsDir, key, 'meta.json'),
      JSON.stringify({ ok: false, diagnostics: 'compiler killed by SIGKILL (limits exceeded?)\n', compileMs: 352 }),
    );
    const runtime = scriptedRuntime([{ ok: true, diagnostics: '' }]);
    const cache = new CompileCache(buildsDir, {} as RuntimeContext);
    const first = await cache.build(runtime, 'w');
    expect([first.ok, first.cached, runtime.calls]).toEqual([true, false, 1]);
    const second = await cache.build(runtime, 'w');
    expect([second.ok, second.cached, runtime.calls]).toEqual([true, true, 1]);
  });

  // What a crash, a disk error, a hand edit or another tool can leave as an entry's meta.json.
  it.each([
    ['torn', '{"ok":tr'],
    ['of a foreign shape', '{"ok":true}'],
    ['of the wrong types', '{"ok":"false","diagnostics":"","compileMs":1}'],
    ['from a newer polyeval', '{"schema_version":2,"ok":true,"diagnostics":"","compileMs":1}'],
    ['missing', undefined],
  ])('compiles again when the meta.json of an entry is %s, never taking its verdict, and replaces the entry', async (_what, meta) => {
    const buildsDir = join(root, `damaged-${_what.replace(/\W/g, '-')}`);
    const key = createHash('sha256').update('scripted\0scripted 1\0v').digest('hex').slice(0, 32);
    mkdirSync(join(buildsDir, key), { recursive: true });
    if (meta !== undefined) writeFileSync(join(buildsDir, key, 'meta.json'), meta);
    // The source does not compile: an entry read as a success would turn this CE into a run of no program.
    const runtime = scriptedRuntime([{ ok: false, diagnostics: 'main.txt:1: error' }]);
    const cache = new CompileCache(buildsDir, {} as RuntimeContext);

    const first = await cache.build(runtime, 'v');
    const second = await cache.build(runtime, 'v');

    expect([first.ok, first.cached, first.diagnostics, runtime.calls]).toEqual([false, false, 'main.txt:1: error', 1]);
    expect([second.ok, second.cached, second.diagnostics, runtime.calls]).toEqual([false, true, 'main.txt:1: error', 1]);
    expect(JSON.parse(readFileSync(join(buildsDir, key, 'meta.json'), 'utf8'))).toMatchObject({
      schema_version: 1,
      ok: false,
      diagnostics: 'main.txt:1: error',
    });
  });
});
