// Every JVM the Java runtime starts in the sandbox — javac's and the program's — runs without a
// perf-data file. A JVM otherwise makes /tmp/hsperfdata_<user> whatever TMPDIR says; where no
// Landlock refuses that write (a Lambda runner), the after-item check (layers/sandbox/integrity.ts)
// finds the new directory in /tmp and ends the environment after its first Java compile.
// A fake RuntimeContext records the compile's spec instead of starting a process.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RuntimeContext } from '#sandbox/runtime.ts';
import type { SandboxResult } from '#sandbox/sandbox-process.ts';
import { javaRuntime } from '#sandbox/languages/java.ts';

type Spec = Parameters<RuntimeContext['sandboxed']>[0];
const root = mkdtempSync(join(tmpdir(), 'pe-jvm-perf-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the Java runtime’s JVMs', () => {
  it('compile with javac’s JVM told to make no perf-data file, and run the program the same way', async () => {
    const specs: Spec[] = [];
    const ctx = {
      cacheDir: root,
      kotlinMode: 'warm',
      sandboxed: async (spec: Spec) => {
        specs.push(spec);
        return { exitCode: 0, signal: null, wallTimeout: false, stdout: '', stderr: '' } as SandboxResult;
      },
    } as RuntimeContext;
    const buildDir = join(root, 'build');
    rmSync(buildDir, { recursive: true, force: true });
    mkdirSync(buildDir);
    writeFileSync(join(buildDir, 'Main.java'), 'class Main {\n    public static void main(String[] args) { }\n}\n');
    const compiled = await javaRuntime.compile(ctx, buildDir, {});
    expect(compiled.ok).toBe(true);
    expect(specs).toHaveLength(1);
    const argv = specs[0]?.argv ?? [];
    expect(argv[0]).toMatch(/javac$/u);
    expect(argv).toContain('-J-XX:-UsePerfData');
    expect(argv).not.toContain('-J-XX:+UsePerfData');
    const run = javaRuntime.runCommand(buildDir, 64, ['token']);
    expect(run.argv[0]).toMatch(/java$/u);
    expect(run.argv).toContain('-XX:-UsePerfData');
  });
});
