/**
 * Java: `javac` (in the sandbox, one call for every source of the sample, classes written
 * to the build directory the sandbox uid owns) and `java` from
 * the JDK the Kotlin runtime already needs. The JVM reserves far more address space than it
 * uses, so memory is bounded by -Xmx (OutOfMemoryError is MLE) rather than RLIMIT_AS, and
 * the process limit leaves room for the JVM's own threads — as kotlin.ts runs it.
 */
import { execFile } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ToolchainInfo } from '#core/ports.ts';
import type { LanguageRuntime } from '../runtime.ts';
import { jvmEtc, JVM_RUN_FLAGS } from './jvm.ts';
import { compileNative } from './native.ts';

const run = promisify(execFile);

/** The unit-test entry class: runs the test's `main`, then prints the token. */
const ENTRY_CLASS = 'PolyevalEntry';
/** javac's own JVM starts like the programs' (measured: about a third faster than defaults). */
const JAVAC_FLAGS = ['-encoding', 'UTF-8', '-proc:none', '-nowarn', '-Xlint:none', '-J-Xmx512m', '-J-XX:+UseSerialGC', '-J-XX:TieredStopAtLevel=1', '-J-Xshare:auto'];

function tool(name: 'java' | 'javac'): string {
  try {
    return realpathSync(`/usr/bin/${name}`);
  } catch {
    return `/usr/bin/${name}`;
  }
}

let version: Promise<string | undefined> | undefined;
function javacVersion(): Promise<string | undefined> {
  version ??= run(tool('javac'), ['-version'], { env: { PATH: '/usr/bin:/bin' }, timeout: 30_000 })
    .then((r) => `${r.stdout}${r.stderr}`.trim().replace(/^javac\s+/u, ''))
    .catch(() => undefined);
  return version;
}

/** Masks comments and literals (same length) so that declarations are found in code only. */
function codeOnly(source: string): string {
  return source.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|"""[\s\S]*?"""|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/gu, (m) => m.replace(/[^\n]/gu, ' '));
}

/**
 * The file name javac needs: a top-level `public` class must live in `<Name>.java`, so a
 * source declaring one (a whole program, or a model that made its class public) is compiled
 * under that name; otherwise `Main.java`.
 */
export function javaFileName(source: string): string {
  const publicTypes = [...codeOnly(source).matchAll(/^public\s+(?:(?:final|abstract|sealed|strictfp)\s+)*(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)/gmu)];
  return publicTypes.length === 1 ? `${publicTypes[0]?.[1]}.java` : 'Main.java';
}

/** The class to run: the entry wrapper of a unit test, else the class that declares `main`. */
export function javaMainClass(source: string): string {
  const code = codeOnly(source);
  if (new RegExp(`\\bclass\\s+${ENTRY_CLASS}\\b`, 'u').test(code)) return ENTRY_CLASS;
  const main = code.search(/\bstatic\s+(?:final\s+)?void\s+main\s*\(/u);
  const before = main < 0 ? code : code.slice(0, main);
  const classes = [...before.matchAll(/\b(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)/gu)];
  return classes.at(-1)?.[1] ?? 'Main';
}

export const javaRuntime: LanguageRuntime = {
  id: 'java',
  sourceFile: 'Main.java',
  async init() {
    await javacVersion();
  },
  async toolchain(): Promise<ToolchainInfo> {
    const v = await javacVersion();
    if (!v) return { language: 'java', available: false, detail: `${tool('javac')} not found` };
    return { language: 'java', compiler: tool('javac'), version: v, flags: [...JAVAC_FLAGS, ...JVM_RUN_FLAGS], available: true, detail: `run with ${tool('java')}` };
  },
  async cacheKey() {
    return `javac ${(await javacVersion()) ?? 'missing'} ${JAVAC_FLAGS.join(' ')}`;
  },
  async compile(ctx, buildDir) {
    const source = await readFile(join(buildDir, 'Main.java'), 'utf8');
    const name = javaFileName(source);
    const sources = join(buildDir, 'src');
    await mkdir(sources, { recursive: true });
    await rename(join(buildDir, 'Main.java'), join(sources, name));
    await writeFile(join(buildDir, 'main-class'), javaMainClass(source));
    const argv = [tool('javac'), ...JAVAC_FLAGS, '-d', buildDir, join(sources, name)];
    return compileNative(ctx, argv, buildDir, jvmEtc());
  },
  runCommand(buildDir, memoryMb, args) {
    const mainClass = readFileSync(join(buildDir, 'main-class'), 'utf8').trim();
    return {
      argv: [tool('java'), `-Xmx${memoryMb}m`, ...JVM_RUN_FLAGS, '-cp', buildDir, mainClass, ...args],
      readOnly: [buildDir, ...jvmEtc()],
      addressSpaceMb: 0,
      processes: 128,
      cpuFactor: 2,
    };
  },
  unitTestProgram(s) {
    // MXEval Java tests are a (non-public) `class Main` whose `main(String[] args)` throws on
    // a wrong result. The entry class calls it as a run without arguments would, then prints
    // the token; System.exit or Runtime.halt before the test's end never reaches the print.
    const testClass = javaMainClass(s.test);
    const entry = [
      `final class ${ENTRY_CLASS} {`,
      '    public static void main(String[] args) throws Throwable {',
      `        ${testClass}.main(new String[0]);`,
      '        System.out.println(args[args.length - 1]);',
      '        System.out.flush();',
      '    }',
      '}',
    ].join('\n');
    return `${s.prompt}${s.completion}\n${s.test}\n\n${entry}\n`;
  },
  isOutOfMemory: (stderr) => /java\.lang\.OutOfMemoryError/u.test(stderr),
};
