import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  batchPackage,
  KotlinBatcher,
  packagedSource,
  splitDiagnostics,
  type BatchOutcome,
  type UnitCompileRequest,
  type UnitCompileResult,
} from '../../../layers/sandbox/languages/kotlin-batch.ts';
import { hide } from '../../../layers/sandbox/program-host.ts';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'polyeval-ktbatch-unit-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('which sources batch', () => {
  it('gives a plain program a package of its own, the same for the same source', () => {
    const pkg = batchPackage('fun main() = println(1)\n');
    expect(pkg).toMatch(/^pe_[0-9a-f]{24}$/u);
    expect(batchPackage('fun main() = println(1)\n')).toBe(pkg);
    expect(batchPackage('fun main() = println(2)\n')).not.toBe(pkg);
  });

  it.each([
    ['its own package', '// c\npackage a.b\nfun main() {}\n'],
    ['file annotations', '@file:JvmName("X")\nfun main() {}\n'],
    ['a shebang', '#!/usr/bin/env kotlin\nfun main() {}\n'],
    ['a byte-order mark', '\uFEFFfun main() {}\n'],
    ['javaClass', 'class A\nfun main() = println(A().javaClass.name)\n'],
    ['a class literal', 'class A\nfun main() = println(A::class.simpleName)\n'],
    ['Class.forName', 'fun main() { Class.forName("A") }\n'],
    ['stack traces', 'fun main() = println(Thread.currentThread().stackTrace.size)\n'],
    ['an exception class of its own', 'class Oops(m: String) : RuntimeException(m)\nfun main() = println(Oops("x"))\n'],
  ])('compiles a source with %s alone', (_, source) => {
    expect(batchPackage(source)).toBeUndefined();
  });

  it('puts the package on line 1, so no line moves', () => {
    const source = 'import kotlin.math.abs\nfun main() = println(abs(-1))\n';
    const packaged = packagedSource('pe_x', source);
    expect(packaged.split('\n')).toHaveLength(source.split('\n').length);
    expect(packaged.split('\n')[1]).toBe('fun main() = println(abs(-1))');
  });
});

describe('splitting a batch’s messages', () => {
  // kotlinc's messages with full paths: "<path>:<line>:<column>: <severity>: <text>", then the
  // source line and a caret (PlainTextMessageRenderer.render, kotlin compiler/cli/cli-common, 2.x).
  it('gives each file its own messages, relative to its directory, and says which have errors', () => {
    const dirs = ['/b/0', '/b/1', '/b/2'];
    const diagnostics = [
      '/b/1/Main.kt:3:19: error: initializer type mismatch.',
      '    val s: String = twice(2)',
      '                  ^',
      "/b/2/Main.kt:1:5: warning: variable 'x' is never used.",
      'val x = 1',
      '    ^',
      'warning: a global one',
    ].join('\n');
    const split = splitDiagnostics(diagnostics, dirs);
    expect(split.map((s) => s.errors)).toEqual([false, true, false]);
    // A message naming no file goes to every file's.
    expect(split[1]?.text).toBe('Main.kt:3:19: error: initializer type mismatch.\n    val s: String = twice(2)\n                  ^\nwarning: a global one');
    expect(split[2]?.text).toBe("Main.kt:1:5: warning: variable 'x' is never used.\nval x = 1\n    ^\nwarning: a global one");
    expect(split[0]?.text).toBe('warning: a global one');
  });
});

describe('hiding the batch package in a program’s output', () => {
  it('removes it from class names and internal names, nothing else', () => {
    const pkg = 'pe_0123';
    const stderr = `Exception in thread "main" ${pkg}.Oops: x\n\tat ${pkg}.MainKt.main(Main.kt:5)\nLpe_0123/A;`;
    expect(hide(stderr, [`${pkg}.`, `${pkg}/`])).toBe('Exception in thread "main" Oops: x\n\tat MainKt.main(Main.kt:5)\nLA;');
    expect(hide('pe_0124.A', [`${pkg}.`])).toBe('pe_0124.A');
  });
});

/** A batcher over a scripted compiler: `errorsIn` names the source texts kotlinc would reject. */
function scripted(errorsIn: string[], opts: { maxBatch?: number; slots?: number; fail?: 'timeout'; batchMs?: number } = {}) {
  const calls: { files: number; alone: boolean }[] = [];
  const outcome = async (args: string[]): Promise<BatchOutcome | undefined> => {
    const files = args.filter((a) => a.endsWith('Main.kt'));
    calls.push({ files: files.length, alone: false });
    if (opts.batchMs) await new Promise((r) => setTimeout(r, opts.batchMs));
    if (opts.fail === 'timeout') return undefined;
    const { readFile } = await import('node:fs/promises');
    const messages: string[] = [];
    const out = args[args.indexOf('-d') + 1] as string;
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      if (errorsIn.some((e) => text.includes(e))) messages.push(`${file}:2:1: error: unresolved reference 'oops'.`);
    }
    if (messages.length > 0) return { exitCode: 'COMPILATION_ERROR', diagnostics: messages.join('\n') };
    for (const file of files) {
      const pkg = /^package (\S+);/u.exec(await readFile(file, 'utf8'))?.[1] as string;
      await mkdir(join(out, pkg), { recursive: true });
      await writeFile(join(out, pkg, 'MainKt.class'), 'x');
    }
    return { exitCode: 'OK', diagnostics: '' };
  };
  const batcher = new KotlinBatcher({
    slots: pLimit(opts.slots ?? 1),
    maxBatch: opts.maxBatch ?? 8,
    warm: () => true,
    implicitFlags: ['-no-reflect'],
    compileWarm: outcome,
    async compileAlone(req: UnitCompileRequest): Promise<UnitCompileResult> {
      calls.push({ files: 1, alone: true });
      await new Promise((r) => setTimeout(r, 20));
      const bad = errorsIn.some((e) => req.source.includes(e));
      return { ok: !bad, diagnostics: bad ? "Main.kt:2:1: error: unresolved reference 'oops'." : '', ms: 1, path: 'warm' };
    },
  });
  return { batcher, calls };
}

let outs = 0;
const req = (source: string): UnitCompileRequest => ({ source, outDir: join(work, `o${++outs}`), flags: [] });

describe('the batcher', () => {
  it('compiles the first program alone, batches those queued behind it, and gives each only its classes', async () => {
    const { batcher, calls } = scripted([]);
    const first = batcher.compile(req('fun main() = println(0)\n'));
    await new Promise((r) => setTimeout(r, 5));
    const rest = [1, 2, 3].map((n) => req(`fun main() = println(${n})\n`));
    const results = await Promise.all([first, ...rest.map((r) => batcher.compile(r))]);
    expect(calls).toEqual([
      { files: 1, alone: true },
      { files: 3, alone: false },
    ]);
    expect(results[0]?.package).toBeUndefined();
    for (const [i, r] of rest.entries()) {
      expect(results[i + 1]).toMatchObject({ ok: true, package: batchPackage(r.source) });
      expect(await readdir(r.outDir)).toEqual([batchPackage(r.source)]);
    }
  });

  it('compiles a batch’s failing program alone (its CE as alone) and batches the others again', async () => {
    const { batcher, calls } = scripted(['oops']);
    const first = batcher.compile(req('fun main() = println(0)\n'));
    await new Promise((r) => setTimeout(r, 5));
    const sources = ['fun main() = println(1)\n', 'fun main() {\noops()\n}\n', 'fun main() = println(3)\n'];
    const results = await Promise.all([first, ...sources.map((s) => batcher.compile(req(s)))]);
    expect(results.map((r) => r.ok)).toEqual([true, true, false, true]);
    expect(results[2]).toMatchObject({ diagnostics: "Main.kt:2:1: error: unresolved reference 'oops'." });
    expect(results[2]?.package).toBeUndefined();
    expect(calls).toEqual([
      { files: 1, alone: true },
      { files: 3, alone: false },
      { files: 1, alone: true },
      { files: 2, alone: false },
    ]);
  });

  it('compiles every program of a batch alone when the batch could not be judged (timeout, dead server)', async () => {
    const { batcher, calls } = scripted([], { fail: 'timeout' });
    const first = batcher.compile(req('fun main() = println(0)\n'));
    await new Promise((r) => setTimeout(r, 5));
    const results = await Promise.all([first, batcher.compile(req('fun main() = println(1)\n')), batcher.compile(req('fun main() = println(2)\n'))]);
    expect(results.every((r) => r.ok && r.package === undefined)).toBe(true);
    expect(calls.filter((c) => !c.alone)).toEqual([{ files: 2, alone: false }]);
    expect(calls.filter((c) => c.alone)).toHaveLength(3);
  });

  it('gives each program of a batch its share of the batch’s time, so a run’s compile times add up to the compiler’s', async () => {
    const { batcher, calls } = scripted([], { batchMs: 300 });
    const first = batcher.compile(req('fun main() = println(0)\n'));
    await new Promise((r) => setTimeout(r, 5));
    const t0 = performance.now();
    const results = await Promise.all([1, 2, 3].map((n) => batcher.compile(req(`fun main() = println(${n})\n`))));
    const wall = performance.now() - t0;
    expect(calls.filter((c) => !c.alone)).toEqual([{ files: 3, alone: false }]);
    for (const r of results) expect(r.ms).toBeGreaterThanOrEqual(99);
    expect(results.reduce((sum, r) => sum + r.ms, 0)).toBeLessThanOrEqual(wall + 3);
    await first;
  });

  it('keeps batches at most maxBatch', async () => {
    const { batcher, calls } = scripted([], { maxBatch: 3, slots: 1 });
    const first = batcher.compile(req('fun main() = println(0)\n'));
    await new Promise((r) => setTimeout(r, 5));
    const rest = [1, 2, 3, 4].map((n) => batcher.compile(req(`fun main() = println(${n})\n`)));
    await Promise.all([first, ...rest]);
    expect(calls).toEqual([
      { files: 1, alone: true },
      { files: 3, alone: false },
      { files: 1, alone: true },
    ]);
  });
});
