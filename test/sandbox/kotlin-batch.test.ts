// Batched Kotlin compilations through the real compile server (kotlin-batch.ts): what a
// batch compiles runs as alone, a CE sample gets exactly its solo diagnostics, and what
// must compile alone does.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKotlinCompiler, type KotlinCompilerHandle } from '../../layers/sandbox/languages/kotlin-compiler.ts';
import { hide } from '../../layers/sandbox/program-host.ts';
import { createSandboxExecutor } from '../../layers/sandbox/executor.ts';
import { scratch, unitTask } from './helpers.ts';

const exec = promisify(execFile);
const SLOW = 600_000;

let work: string;
let kotlin: KotlinCompilerHandle;
let dirs = 0;
const outDir = (): string => join(work, `out-${++dirs}`);

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'polyeval-kotlin-batch-'));
  // One compile thread: while the first program compiles alone, the others queue and batch.
  kotlin = createKotlinCompiler({ maxInFlight: 1 });
  await kotlin.warmUp();
}, SLOW);

afterAll(async () => {
  await kotlin?.close();
  await rm(work, { recursive: true, force: true });
}, SLOW);

/** Runs a compiled program as the kotlin runtime does, its output with the batch's package hidden. */
async function run(dir: string, pkg: string | undefined, cls = 'MainKt'): Promise<{ stdout: string; stderr: string; code: number }> {
  const mainClass = pkg ? `${pkg}.${cls}` : cls;
  const hidden = pkg ? [`${pkg}.`, `${pkg}/`] : [];
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin' };
  try {
    const r = await exec('java', ['-cp', `${kotlin.stdlibJar()}:${dir}`, mainClass], { env });
    return { stdout: hide(r.stdout, hidden), stderr: hide(r.stderr, hidden), code: 0 };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { stdout: hide(e.stdout, hidden), stderr: hide(e.stderr, hidden), code: e.code };
  }
}

/** Compiles the first source, then (once the server has taken it) the others, which queue behind it. */
async function queuedBehindFirst(sources: string[]): ReturnType<typeof Promise.all<Promise<Awaited<ReturnType<KotlinCompilerHandle['compileUnit']>>>[]>> {
  const [head, ...rest] = sources.map((source) => ({ source, outDir: outDir(), flags: [] }));
  const first = kotlin.compileUnit(head as { source: string; outDir: string; flags: string[] });
  await new Promise((r) => setTimeout(r, 100));
  return Promise.all([first, ...rest.map((req) => kotlin.compileUnit(req))]);
}

const bad = 'fun twice(x: Int): Int = x * 2\nfun main() {\n    val s: String = twice(2)\n    println(s)\n}\n';

describe('batched Kotlin compilations (real compile server)', () => {
  it(
    'a batch with one CE sample: that sample CE with its solo diagnostics, the others OK; same top-level names both OK',
    async () => {
      const solo = await kotlin.compileUnit({ source: bad, outDir: outDir(), flags: [] });
      expect(solo.ok).toBe(false);
      expect(solo.package).toBeUndefined();
      expect(solo.diagnostics).toMatch(/^Main\.kt:3:19: error: /u);

      // The first takes the idle server alone; the next four queue meanwhile and batch.
      const sources = [
        'fun main() = println("first")\n',
        '/** a KDoc on line 1 */\nfun helper(n: Int) = n + 1\nfun main() = println("A" + helper(1))\n',
        'import kotlin.math.abs\nfun helper(n: Int) = abs(n) * 10\nfun main() = println("B" + helper(-2))\n',
        bad,
        '// a comment on line 1\ndata class P(val a: Int)\nfun main() {\n    println(P(3))\n    throw IllegalStateException("boom")\n}\n',
      ];
      const results = await queuedBehindFirst(sources);
      const [first, a, b, ce, thrower] = results;
      expect(first?.package).toBeUndefined(); // compiled alone, as before batching
      for (const r of [a, b, thrower]) expect(r?.ok, r?.diagnostics).toBe(true);
      expect(new Set([a?.package, b?.package, thrower?.package]).size).toBe(3);
      expect(a?.package).toMatch(/^pe_[0-9a-f]{24}$/u);
      expect(ce).toMatchObject({ ok: false, diagnostics: solo.diagnostics });
      expect(ce?.package).toBeUndefined();

      const first0 = `${work}/out-${dirs - 4}`;
      expect((await run(first0, undefined)).stdout).toBe('first\n');
      expect((await run(`${work}/out-${dirs - 3}`, a?.package)).stdout).toBe('A2\n');
      expect((await run(`${work}/out-${dirs - 2}`, b?.package)).stdout).toBe('B20\n');
      // Its only classes are its own package's.
      expect(await readdir(`${work}/out-${dirs - 2}`)).toEqual([b?.package]);
      // A stack trace reads as compiled alone: same class names, same line numbers.
      const t = await run(`${work}/out-${dirs}`, thrower?.package);
      expect(t.code).toBe(1);
      expect(t.stdout).toBe('P(a=3)\n');
      expect(t.stderr).toContain('Exception in thread "main" java.lang.IllegalStateException: boom\n\tat MainKt.main(Main.kt:5)');
    },
    SLOW,
  );

  it(
    'a sample with its own package line, file annotations or a look at class names compiles alone',
    async () => {
      const sources = [
        'fun main() = println("warm the queue")\n',
        'package mine\n\nfun main() = println("own package")\n',
        '@file:JvmName("Named")\n\nfun main() = println("annotated")\n',
        'class K\nfun main() = println(K::class.java.name)\n',
      ];
      const results = await queuedBehindFirst(sources);
      for (const r of results) {
        expect(r.ok, r.diagnostics).toBe(true);
        expect(r.package).toBeUndefined();
      }
      expect((await run(`${work}/out-${dirs - 2}`, undefined, 'mine.MainKt')).stdout).toBe('own package\n');
      expect((await run(`${work}/out-${dirs - 1}`, undefined, 'Named')).stdout).toBe('annotated\n');
      expect((await run(`${work}/out-${dirs}`, undefined)).stdout).toBe('K\n');
    },
    SLOW,
  );
});

describe('the executor compiles Kotlin samples ahead of their runs', () => {
  it(
    'takes Kotlin samples beyond its concurrency once told Kotlin comes, and judges them as alone',
    async () => {
      const dirs = scratch('kt-ahead');
      const executor = await createSandboxExecutor({ concurrency: 1, cacheDir: dirs.cacheDir, workRoot: dirs.workRoot });
      try {
        executor.prepare?.(['python']);
        expect(executor.compileAhead?.()).toBe(0);
        executor.prepare?.(['kotlin']);
        expect(executor.compileAhead?.()).toBe(16);
        const test = 'fun main() {\n    if (dublu(2) != 4) throw IllegalStateException("dublu(2)")\n}\n';
        const codes = [
          'fun dublu(n: Int): Int = 2 * n\n',
          'fun dublu(n: Int): Int = n + n\n',
          'fun dublu(n: Int): Int = 3 * n\n',
          'fun dublu(n: Int): Int = "x"\n',
          'fun dublu(n: Int): Int = n shl 1\n',
        ];
        const outcomes = await Promise.all(
          codes.map((code) => executor.execute({ scorer: 'unit-tests', task: unitTask('kotlin', test, 'dublu'), language: 'kotlin', code })),
        );
        expect(outcomes.map((o) => o.verdict)).toEqual(['OK', 'OK', 'RE', 'CE', 'OK']);
        // The failing run's stack trace reads as compiled alone, whether or not it was batched.
        expect(outcomes[2]?.error).toContain('IllegalStateException: dublu(2)');
        expect(outcomes[2]?.error).not.toMatch(/pe_[0-9a-f]/u);
        expect(outcomes[3]?.error).toMatch(/Main\.kt:\d+:\d+: error: /u);
        // …and it was batched: its build runs a class in a package of its own.
        const builds = join(dirs.cacheDir, 'builds');
        const mainClasses = await Promise.all(
          (await readdir(builds)).map(async (d) => ({
            source: await readFile(join(builds, d, 'Main.kt'), 'utf8'),
            mainClass: await readFile(join(builds, d, 'main-class'), 'utf8'),
          })),
        );
        expect(mainClasses.find((b) => b.source.includes('3 * n'))?.mainClass).toMatch(/^pe_[0-9a-f]{24}\.PolyevalEntry$/u);
      } finally {
        await executor.close();
        await rm(dirs.root, { recursive: true, force: true });
      }
    },
    SLOW,
  );
});
