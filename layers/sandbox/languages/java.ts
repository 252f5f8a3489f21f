/**
 * Java: `javac` (in the sandbox, one call for every source of the sample, classes written
 * to the build directory the sandbox uid owns) and `java` from
 * the JDK the Kotlin runtime already needs, run as every program JVM runs (jvm.ts).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { maskCFamily } from '#core/languages/index.ts';
import type { ToolchainInfo } from '#core/ports.ts';
import type { LanguageRuntime } from '../runtime.ts';
import { jdkTool, jvmEtc, jvmOutOfMemory, jvmRunCommand, JVM_RUN_FLAGS } from './jvm.ts';
import { compileNative } from './native.ts';

const run = promisify(execFile);

/** The unit-test entry class: runs the test's `main`, then prints the token. */
const ENTRY_CLASS = 'PolyevalEntry';
/**
 * javac's own JVM starts like the programs' (measured: about a third faster than defaults), and
 * like them without a perf-data file: a JVM otherwise makes /tmp/hsperfdata_<user> whatever
 * TMPDIR says, which a Lambda runner's after-item check (where no Landlock refuses the write)
 * takes for a planted file, ending the environment after its first Java compile.
 */
const JAVAC_FLAGS = [
  '-encoding',
  'UTF-8',
  '-proc:none',
  '-nowarn',
  '-Xlint:none',
  '-J-Xmx512m',
  '-J-XX:+UseSerialGC',
  '-J-XX:TieredStopAtLevel=1',
  '-J-Xshare:auto',
  '-J-XX:-UsePerfData',
];

const tool = jdkTool;

let version: Promise<string | undefined> | undefined;
function javacVersion(): Promise<string | undefined> {
  // No perf-data file: a JVM otherwise makes /tmp/hsperfdata_<user> (whatever TMPDIR says), which a
  // container's after-item check takes for a planted file (a judge probes this to record its toolchain).
  version ??= run(tool('compiler'), ['-J-XX:-UsePerfData', '-version'], { env: { PATH: '/usr/bin:/bin' }, timeout: 30_000 })
    .then((r) => `${r.stdout}${r.stderr}`.trim().replace(/^javac\s+/u, ''))
    .catch(() => undefined);
  return version;
}

/**
 * The file name javac needs: a top-level `public` class must live in `<Name>.java`, so a
 * source declaring one (a whole program, or a model that made its class public) is compiled
 * under that name; otherwise `Main.java`.
 */
export function javaFileName(source: string): string {
  const publicTypes = [
    ...maskCFamily(source).matchAll(/^public\s+(?:(?:final|abstract|sealed|strictfp)\s+)*(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)/gmu),
  ];
  return publicTypes.length === 1 ? `${publicTypes[0]?.[1]}.java` : 'Main.java';
}

/**
 * The classes enclosing the first `static void main(` of `source`, outermost first
 * (`['Main']`; `['Teste', 'Interne']` for a nested class), or undefined when none declares one.
 */
export function javaMainPath(source: string): string[] | undefined {
  const code = maskCFamily(source);
  const stack: { name: string; depth: number }[] = [];
  let depth = 0;
  let pending: string | undefined;
  const tokens = /\b(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)|[{}]|\bstatic\s+(?:(?:public|final|synchronized)\s+)*void\s+main\s*\(/gu;
  for (const m of code.matchAll(tokens)) {
    if (m[1] !== undefined) {
      pending = m[1];
    } else if (m[0] === '{') {
      depth++;
      if (pending !== undefined) stack.push({ name: pending, depth });
      pending = undefined;
    } else if (m[0] === '}') {
      if (stack.at(-1)?.depth === depth) stack.pop();
      depth--;
    } else if (stack.length > 0) {
      return stack.map((c) => c.name);
    }
  }
  return undefined;
}

/** The class `java` runs (binary name): the unit-test entry wrapper, else the one declaring `main`. */
export function javaMainClass(source: string): string {
  if (new RegExp(`\\bclass\\s+${ENTRY_CLASS}\\b`, 'u').test(maskCFamily(source))) return ENTRY_CLASS;
  return (javaMainPath(source) ?? ['Main']).join('$');
}

export const javaRuntime: LanguageRuntime = {
  id: 'java',
  sourceFile: 'Main.java',
  async init() {
    await javacVersion();
  },
  async toolchain(): Promise<ToolchainInfo> {
    const v = await javacVersion();
    if (!v) return { language: 'java', available: false, detail: `${tool('compiler')} not found` };
    return {
      language: 'java',
      compiler: tool('compiler'),
      version: v,
      flags: [...JAVAC_FLAGS, ...JVM_RUN_FLAGS],
      available: true,
      detail: `run with ${tool('launcher')}`,
    };
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
    const argv = [tool('compiler'), ...JAVAC_FLAGS, '-d', buildDir, join(sources, name)];
    return compileNative(ctx, argv, buildDir, jvmEtc());
  },
  runCommand(buildDir, memoryMb, args) {
    const mainClass = readFileSync(join(buildDir, 'main-class'), 'utf8').trim();
    return jvmRunCommand({ classPath: [buildDir], mainClass, memoryMb, args, readOnly: [buildDir] });
  },
  unitTestProgram(s) {
    // MXEval Java tests are a (non-public) `class Main` whose `main(String[] args)` throws on
    // a wrong result. The entry class calls it as a run without arguments would, then prints
    // the token; System.exit or Runtime.halt before the test's end never reaches the print.
    const testClass = (javaMainPath(s.test) ?? ['Main']).join('.');
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
  isOutOfMemory: jvmOutOfMemory,
};
