import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../layers/core/errors.ts';
import { createKotlinCompiler, type KotlinCompilerHandle } from '../../layers/sandbox/languages/kotlin-compiler.ts';
import { ensureServerBuilt } from '../../layers/sandbox/kotlin-server/build.ts';
import { archiveFlags, SERVER_JVM_FLAGS, serverClassPath } from '../../layers/sandbox/kotlin-server/jvm-flags.ts';

const exec = promisify(execFile);
// Kotlin compiles are slow, and far slower when the machine is shared: generous limits.
const SLOW = 600_000;

let work: string;
let kotlin: KotlinCompilerHandle;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'polyeval-kotlin-test-'));
  kotlin = createKotlinCompiler({ maxInFlight: 3 });
  await kotlin.warmUp();
}, SLOW);

afterAll(async () => {
  await kotlin?.close();
  await rm(work, { recursive: true, force: true });
}, SLOW);

let dirs = 0;
const outDir = (): string => join(work, `out-${++dirs}`);

/** Runs a compiled program the way the kotlin runtime does: plain `java` against the stdlib. */
async function runMain(dir: string, stdlib: string, mainClass = 'MainKt'): Promise<string> {
  const { stdout } = await exec('java', ['-cp', `${dir}:${stdlib}`, mainClass], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' } });
  return stdout;
}

let scripts = 0;
/** Writes a Node script that has createKotlinCompiler in scope. */
async function scriptFile(body: string): Promise<string> {
  const file = join(work, `script-${++scripts}.mts`);
  const module = new URL('../../layers/sandbox/languages/kotlin-compiler.ts', import.meta.url).href;
  await writeFile(file, `import { createKotlinCompiler } from ${JSON.stringify(module)};\n${body}\n`);
  return file;
}

/** Runs a script in a fresh Node process; resolves once that process has exited by itself. */
async function runScript(body: string): Promise<{ stdout: string }> {
  return exec(process.execPath, ['--import', 'tsx', await scriptFile(body)], { cwd: process.cwd(), timeout: SLOW });
}

/** Waits (up to two minutes) for a process to disappear; a zombie nobody has reaped yet counts as gone. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 240; i++) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (stat === '' || state === 'Z' || state === 'X') return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

const main = (body: string): { name: string; content: string }[] => [{ name: 'Main.kt', content: `fun main() {\n${body}\n}\n` }];

describe('warm Kotlin compiler', () => {
  it(
    'compiles a correct program into classes that run against the stdlib',
    async () => {
      const dir = outDir();
      const result = await kotlin.compile({ sources: main('val xs = listOf(5, 3, 9).sorted()\nprintln(xs.joinToString("-"))'), outDir: dir });
      expect(result).toMatchObject({ ok: true, path: 'warm' });
      expect(await runMain(dir, kotlin.stdlibJar())).toBe('3-5-9\n');
    },
    SLOW,
  );

  it(
    'reports compile errors with file, line and column relative to the sources',
    async () => {
      const result = await kotlin.compile({ sources: main('val n: Int = "text"\nprintln(n)'), outDir: outDir() });
      expect(result.ok).toBe(false);
      expect(result.path).toBe('warm');
      expect(result.diagnostics).toMatch(/^Main\.kt:2:\d+: error: /m);
      expect(result.diagnostics).not.toContain(tmpdir());
    },
    SLOW,
  );

  it(
    'compiles several source files together',
    async () => {
      const dir = outDir();
      const sources = [
        { name: 'Util.kt', content: 'fun twice(x: Int): Int = 2 * x\n' },
        { name: 'Main.kt', content: 'fun main() { println(twice(21)) }\n' },
      ];
      const result = await kotlin.compile({ sources, outDir: dir });
      expect(result.ok).toBe(true);
      expect(await runMain(dir, kotlin.stdlibJar())).toBe('42\n');
    },
    SLOW,
  );

  it(
    'rejects String.toLowerCase() by default and accepts it with -api-version 2.0',
    async () => {
      const sources = main('println("MiXeD".toLowerCase())');
      const strict = await kotlin.compile({ sources, outDir: outDir() });
      const dir = outDir();
      const lenient = await kotlin.compile({ sources, outDir: dir, flags: ['-api-version', '2.0', '-nowarn'] });
      expect(strict.ok).toBe(false);
      expect(strict.diagnostics).toContain('toLowerCase');
      expect(lenient.ok).toBe(true);
      expect(await runMain(dir, kotlin.stdlibJar())).toBe('mixed\n');
    },
    SLOW,
  );

  it(
    'keeps concurrent compilations apart: each gets its own classes and its own diagnostics',
    async () => {
      const ids = [1, 2, 3, 4, 5, 6, 7, 8];
      const dirs = ids.map(() => outDir());
      const program = (id: number): string =>
        id % 4 === 0 ? `println(missing${id})` : `val v = (1..${id}).fold(0) { a, b -> a + b * ${id} }\nprintln("task ${id}: $v")`;
      const results = await Promise.all(ids.map((id, i) => kotlin.compile({ sources: main(program(id)), outDir: dirs[i] ?? '' })));
      expect(results.map((r) => r.ok)).toEqual(ids.map((id) => id % 4 !== 0));
      for (const [i, id] of ids.entries()) {
        const result = results[i];
        if (id % 4 === 0) {
          const mentioned = new Set([...(result?.diagnostics ?? '').matchAll(/missing(\d+)/g)].map((m) => Number(m[1])));
          expect([...mentioned]).toEqual([id]);
        } else {
          expect(await runMain(dirs[i] ?? '', kotlin.stdlibJar())).toBe(`task ${id}: ${(id * (id + 1) * id) / 2}\n`);
        }
      }
    },
    SLOW,
  );

  it(
    'starts the server JVM without the parent environment',
    async () => {
      const pid = kotlin.stats().currentPid;
      expect(pid).toBeTypeOf('number');
      const environ = await readFile(`/proc/${pid}/environ`, 'utf8');
      const names = environ
        .split('\0')
        .filter(Boolean)
        .map((kv) => kv.split('=')[0]);
      expect(names.every((name) => ['PATH', 'LANG', 'LC_ALL', 'JAVA_HOME'].includes(name ?? ''))).toBe(true);
    },
    SLOW,
  );

  it(
    'restarts the server after its JVM is killed, retrying the request in flight',
    async () => {
      const victim = kotlin.stats().currentPid;
      const retriesBefore = kotlin.stats().retries;
      expect(victim).toBeTypeOf('number');
      const dir = outDir();
      // Many functions make the compilation long enough to be caught in flight.
      const filler = Array.from({ length: 300 }, (_, i) => `fun f${i}(x: Int): Int = if (x > ${i}) x - ${i} else x * ${i} + 1`).join('\n');
      const sources = [{ name: 'Main.kt', content: `${filler}\nfun main() { println("after the crash " + f299(1)) }\n` }];
      let settled = false;
      const pending = kotlin.compile({ sources, outDir: dir }).finally(() => (settled = true));
      while (kotlin.stats().inFlight === 0 && !settled) await new Promise((r) => setTimeout(r, 5));
      process.kill(victim ?? 0, 'SIGKILL');
      const result = await pending;
      expect(result.ok).toBe(true);
      expect(kotlin.stats().retries).toBe(retriesBefore + 1);
      expect(kotlin.stats().currentPid).not.toBe(victim);
      expect(await runMain(dir, kotlin.stdlibJar())).toBe('after the crash 300\n');
      const next = await kotlin.compile({ sources: main('println("still warm")'), outDir: outDir() });
      expect(next).toMatchObject({ ok: true, path: 'warm' });
    },
    SLOW,
  );

  it('rejects source names that are not bare .kt file names', async () => {
    await expect(kotlin.compile({ sources: [{ name: '../Main.kt', content: 'fun main() {}' }], outDir: outDir() })).rejects.toBeInstanceOf(InputError);
  });
});

describe('server lifecycle', () => {
  it(
    'starts from a class-data archive the installed JDK and jars still accept (a rejected one is silently skipped)',
    async () => {
      const dir = await ensureServerBuilt();
      const archive = archiveFlags(dir);
      expect(archive).toHaveLength(1);
      // -Xshare:on turns the silent fallback into an error: a stale archive fails here.
      await exec('java', [...SERVER_JVM_FLAGS, '-Xshare:on', ...archive, '-cp', serverClassPath(dir), '-version'], {
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
      });
    },
    SLOW,
  );

  it(
    'replaces the server after the configured number of compilations',
    async () => {
      const recycling = createKotlinCompiler({ recycleAfter: 2, maxInFlight: 1 });
      try {
        const pids: (number | undefined)[] = [];
        for (let i = 0; i < 3; i++) {
          const result = await recycling.compile({ sources: main(`println(${i})`), outDir: outDir() });
          expect(result.ok).toBe(true);
          pids.push(recycling.stats().currentPid);
        }
        const stats = recycling.stats();
        expect(stats.recycles).toBeGreaterThanOrEqual(1);
        expect(stats.serversStarted).toBeGreaterThanOrEqual(2);
        expect(pids[0]).not.toBe(pids[2]);
      } finally {
        await recycling.close();
      }
    },
    SLOW,
  );

  it(
    'replaces the server when its heap stays above the threshold',
    async () => {
      const recycling = createKotlinCompiler({ recycleHeapMb: 1, maxInFlight: 1 });
      try {
        const first = await recycling.compile({ sources: main('println("a")'), outDir: outDir() });
        const firstPid = recycling.stats().currentPid;
        const second = await recycling.compile({ sources: main('println("b")'), outDir: outDir() });
        expect([first.ok, second.ok]).toEqual([true, true]);
        expect(recycling.stats().recycles).toBeGreaterThanOrEqual(1);
        expect(recycling.stats().currentPid).not.toBe(firstPid);
      } finally {
        await recycling.close();
      }
    },
    SLOW,
  );

  it(
    'lets Node exit without close() and takes the server JVM down with it',
    async () => {
      const { stdout } = await runScript(`
      const kotlin = createKotlinCompiler();
      const result = await kotlin.compile({ sources: [{ name: 'Main.kt', content: 'fun main() {}' }], outDir: ${JSON.stringify(outDir())} });
      console.log(JSON.stringify({ ok: result.ok, pid: kotlin.stats().currentPid }));
    `);
      const report = JSON.parse(stdout.trim()) as { ok: boolean; pid: number };
      expect(report.ok).toBe(true);
      expect(await gone(report.pid)).toBe(true);
    },
    SLOW,
  );

  it(
    'stops the server JVM when its parent is killed',
    async () => {
      const child = execFile(
        process.execPath,
        [
          '--import',
          'tsx',
          await scriptFile(`
      const kotlin = createKotlinCompiler();
      await kotlin.warmUp();
      console.log(String(kotlin.stats().currentPid));
      setInterval(() => undefined, 1000);
    `),
        ],
        { cwd: process.cwd() },
      );
      const pid = await new Promise<number>((resolvePid, reject) => {
        child.stdout?.once('data', (chunk: Buffer) => resolvePid(Number(chunk.toString().trim())));
        child.once('exit', (code) => reject(new Error(`script exited early (${code})`)));
      });
      expect(pid).toBeGreaterThan(0);
      child.kill('SIGKILL');
      expect(await gone(pid)).toBe(true);
    },
    SLOW,
  );

  it(
    'reports a timeout when a compilation exceeds its limit',
    async () => {
      const hasty = createKotlinCompiler({ timeoutMs: 1 });
      try {
        const result = await hasty.compile({ sources: main('println(1)'), outDir: outDir() });
        expect(result).toMatchObject({ ok: false, timedOut: true });
      } finally {
        await hasty.close();
      }
    },
    SLOW,
  );

  it(
    'falls back to cold kotlinc when the server cannot start',
    async () => {
      // A JAVA_HOME whose java refuses to run the compile server but runs anything else.
      const fakeHome = join(work, 'fake-jdk');
      await mkdir(join(fakeHome, 'bin'), { recursive: true });
      const realJava = (await exec('sh', ['-c', 'command -v java'])).stdout.trim();
      const script = `#!/bin/sh\ncase "$*" in *KotlinCompileServer*) echo "no server here" >&2; exit 7;; esac\nexec ${realJava} "$@"\n`;
      await writeFile(join(fakeHome, 'bin', 'java'), script);
      await chmod(join(fakeHome, 'bin', 'java'), 0o755);
      const saved = process.env['JAVA_HOME'];
      process.env['JAVA_HOME'] = fakeHome;
      const fallback = createKotlinCompiler();
      try {
        const dir = outDir();
        const result = await fallback.compile({ sources: main('println("cold path")'), outDir: dir });
        expect(result).toMatchObject({ ok: true, path: 'cold' });
        expect(fallback.stats().fallbackReason).toContain('no server here');
        expect(await runMain(dir, fallback.stdlibJar())).toBe('cold path\n');
      } finally {
        if (saved === undefined) delete process.env['JAVA_HOME'];
        else process.env['JAVA_HOME'] = saved;
        await fallback.close();
      }
    },
    SLOW,
  );
});

describe('cold Kotlin compiler', () => {
  it(
    'produces the same classes and output as the warm server',
    async () => {
      const cold = createKotlinCompiler({ mode: 'cold' });
      const sources = main('val words = "b a c".split(" ").sorted()\nprintln(words)');
      const coldDir = outDir();
      const warmDir = outDir();
      const [coldResult, warmResult] = await Promise.all([cold.compile({ sources, outDir: coldDir }), kotlin.compile({ sources, outDir: warmDir })]);
      expect(coldResult).toMatchObject({ ok: true, path: 'cold' });
      expect(warmResult).toMatchObject({ ok: true, path: 'warm' });
      expect(await readdir(coldDir, { recursive: true })).toEqual(await readdir(warmDir, { recursive: true }));
      expect(await runMain(coldDir, cold.stdlibJar())).toBe(await runMain(warmDir, kotlin.stdlibJar()));
      await cold.close();
    },
    SLOW,
  );

  it(
    'reports the same diagnostics as the warm server for a broken program',
    async () => {
      const cold = createKotlinCompiler({ mode: 'cold' });
      const sources = main('println(undefinedName)');
      const [coldResult, warmResult] = await Promise.all([cold.compile({ sources, outDir: outDir() }), kotlin.compile({ sources, outDir: outDir() })]);
      expect(coldResult).toMatchObject({ ok: false, path: 'cold' });
      expect(coldResult.diagnostics).toBe(warmResult.diagnostics);
      await cold.close();
    },
    SLOW,
  );
});
