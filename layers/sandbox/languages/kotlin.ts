/**
 * Kotlin: compiled by the warm compile server (kotlin-compiler.ts; cold `kotlinc` as the
 * fallback and for comparison), run with `java -cp <classes>:<kotlin-stdlib.jar>` as every
 * program JVM runs (jvm.ts).
 *
 * A job's language version (`ToolchainOptions.languageVersion`, a run setting for datasets
 * written against older Kotlin APIs) becomes `-language-version`/`-api-version` of that
 * job's compilation only: nothing about it is kept between compilations.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { HarnessError } from '#core/errors.ts';
import type { ToolchainOptions } from '#core/languages/index.ts';
import type { ToolchainInfo } from '#core/ports.ts';
import type { LanguageRuntime, RuntimeContext } from '../runtime.ts';
import { ensureServerBuilt } from '../kotlin-server/build.ts';
import { kotlinHome } from '../kotlin-server/toolchain.ts';
import { createKotlinCompiler, type KotlinCompilerHandle } from './kotlin-compiler.ts';
import { archivePath, buildProgramArchive, outOfProgramsReach, verifiedArchive, type ProgramArchive } from './kotlin-cds.ts';
import { jdkTool, jvmOutOfMemory, jvmRunCommand, JVM_RUN_FLAGS } from './jvm.ts';

// The compile server is shared by every executor of the process (one warm JVM), not its flags.
let compiler: KotlinCompilerHandle | undefined;
let compilerMode: 'warm' | 'cold' | undefined;

/** The unit-test entry class: runs the test's `main()`, then prints the token. */
const ENTRY_CLASS = 'PolyevalEntry';

/** The kotlinc flags of a job's options (part of its compile cache key and of the recorded toolchain). */
export function kotlincFlags(options: ToolchainOptions): string[] {
  const version = options.languageVersion;
  return version ? ['-language-version', version, '-api-version', version] : [];
}

const java = (): string => jdkTool('launcher');

/**
 * The stdlib jar the sandboxed JVM runs with: a copy in the machine-wide cache (0755), because
 * sandboxed code runs as an unprivileged uid that may not reach node_modules (a checkout
 * under /root, say). Named by its hash, so the image's prebuilt copy has the same name.
 */
let runnableStdlib: string | undefined;

function stdlibName(bytes: Buffer): string {
  return `kotlin-stdlib-${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.jar`;
}

function stdlibFor(cacheDir: string, source: string): string {
  const target = join(cacheDir, stdlibName(readFileSync(source)));
  if (!existsSync(target)) {
    const partial = `${target}.${process.pid}.tmp`;
    writeFileSync(partial, readFileSync(source), { mode: 0o644 });
    renameSync(partial, target);
  }
  return target;
}

/**
 * The class-data archive programs start from (kotlin-cds.ts), once one no program can write
 * is ready: in an executor container the image's prebuilt one, elsewhere one dumped into the
 * cache in the background (runs before it is ready start from the JDK's default archive, with
 * the same verdicts).
 */
let programArchive: ProgramArchive | undefined;
/** The cache and isolation the archive was prepared for (an executor with others prepares its own). */
let archiveFor: string | undefined;

async function prepareArchive(ctx: RuntimeContext, stdlib: string, key: string): Promise<void> {
  if (ctx.prebuiltDir) {
    const prebuiltStdlib = join(ctx.prebuiltDir, basename(stdlib));
    const archive = archivePath(ctx.prebuiltDir, prebuiltStdlib);
    if (existsSync(prebuiltStdlib) && verifiedArchive(archive) && outOfProgramsReach(archive, ctx.programWriters)) {
      if (archiveFor === key) programArchive = { archive, stdlib: prebuiltStdlib };
    }
    // An executor container: its image dumps the archive at build time; one dumped here, in a
    // cache the after-item check watches, would show as files appearing and vanishing.
    return;
  }
  if (!outOfProgramsReach(ctx.cacheDir, ctx.programWriters)) return; // programs could replace it
  const archive = await buildProgramArchive(ctx.cacheDir, stdlib);
  if (archive && archiveFor === key && verifiedArchive(archive) && outOfProgramsReach(archive, ctx.programWriters)) programArchive = { archive, stdlib };
}

function getCompiler(ctx: RuntimeContext): KotlinCompilerHandle {
  if (!compiler || compilerMode !== ctx.kotlinMode) {
    compiler = createKotlinCompiler({ mode: ctx.kotlinMode });
    compilerMode = ctx.kotlinMode;
  }
  return compiler;
}

/** Whether the test's top-level `main` takes an `Array<String>` (a `vararg` one takes none). */
export function kotlinMainTakesArray(test: string): boolean {
  const params = /^\s*fun\s+main\s*\(([^)]*)\)/mu.exec(test)?.[1] ?? '';
  return params.trim() !== '' && !/\bvararg\b/u.test(params);
}

export const kotlinRuntime: LanguageRuntime = {
  id: 'kotlin',
  sourceFile: 'Main.kt',
  async init(ctx) {
    const c = getCompiler(ctx);
    if (!runnableStdlib || !existsSync(runnableStdlib)) runnableStdlib = stdlibFor(ctx.cacheDir, c.stdlibJar());
    void c.warmUp(); // the server boots while the rest of the run gets going; never throws
    const key = JSON.stringify([ctx.cacheDir, ctx.prebuiltDir, ctx.programWriters]);
    if (archiveFor !== key) {
      archiveFor = key;
      programArchive = undefined;
      void prepareArchive(ctx, runnableStdlib, key).catch(() => undefined);
    }
  },
  async toolchain(ctx, options): Promise<ToolchainInfo> {
    try {
      const version = await getCompiler(ctx).version();
      return {
        language: 'kotlin',
        compiler: `kotlinc (${ctx.kotlinMode})`,
        version,
        flags: [...kotlincFlags(options), ...JVM_RUN_FLAGS],
        available: true,
        detail: `run with ${java()}`,
      };
    } catch (cause) {
      return { language: 'kotlin', available: false, detail: String(cause) };
    }
  },
  async cacheKey(ctx, options) {
    return `kotlinc ${await getCompiler(ctx).version()} ${kotlincFlags(options).join(' ')}`;
  },
  async compile(ctx, buildDir, options) {
    const source = readFileSync(join(buildDir, 'Main.kt'), 'utf8');
    // Batched with the programs queued meanwhile when the server is busy (kotlin-batch.ts).
    const r = await getCompiler(ctx).compileUnit({ source, outDir: join(buildDir, 'classes'), flags: kotlincFlags(options) });
    const mainClass = source.includes(`object ${ENTRY_CLASS}`) ? ENTRY_CLASS : 'MainKt';
    await writeFile(join(buildDir, 'main-class'), r.package ? `${r.package}.${mainClass}` : mainClass);
    return r.timedOut ? { ok: false, diagnostics: 'compilation exceeded its time limit', timedOut: true } : { ok: r.ok, diagnostics: r.diagnostics };
  },
  runCommand(buildDir, memoryMb, args) {
    if (!compiler) throw new HarnessError('kotlin runtime used before init()');
    const mainClass = readFileSync(join(buildDir, 'main-class'), 'utf8').trim();
    // The archive only with the stdlib it was dumped for, first on the class path; it is
    // checked again before each run (a changed file would crash the JVM, not just slow it).
    const shared = programArchive && verifiedArchive(programArchive.archive) ? programArchive : undefined;
    const stdlib = shared?.stdlib ?? runnableStdlib ?? compiler.stdlibJar();
    const classPath = [stdlib, join(buildDir, 'classes')];
    const command = jvmRunCommand({ classPath, mainClass, memoryMb, args, readOnly: [buildDir, stdlib], sharedArchive: shared?.archive });
    // A batched compilation's package (kotlin-batch.ts) leaves the program's output: a class
    // name it prints or a stack trace reads as compiled alone, as MXEval compiles it.
    const dot = mainClass.lastIndexOf('.');
    const pkg = dot > 0 ? mainClass.slice(0, dot) : undefined;
    return pkg?.startsWith('pe_') ? { ...command, hideInOutput: [`${pkg}.`, `${pkg}/`] } : command;
  },
  unitTestProgram(s) {
    // MXEval Kotlin tests are a top-level `fun main` (no parameters, `args: Array<String>` or
    // `vararg args: String`). A top-level helper calls it — inside the entry object `main`
    // would name the object's own — as a run without arguments would; the entry object
    // runs it to its end, then prints the token. Exiting early (exitProcess, System.exit)
    // never reaches the print.
    const call = kotlinMainTakesArray(s.test) ? 'main(arrayOf<String>())' : 'main()';
    const entry = [
      `private fun polyevalRunTest() { ${call} }`,
      '',
      `object ${ENTRY_CLASS} {`,
      '    @JvmStatic fun main(args: Array<String>) {',
      '        polyevalRunTest()',
      '        println(args[args.size - 1])',
      '        System.out.flush()',
      '    }',
      '}',
    ].join('\n');
    return `${s.prompt}${s.completion}\n\n${s.test}\n\n${entry}\n`;
  },
  batchesCompiles: true,
  isOutOfMemory: jvmOutOfMemory,
  async prebuild(cacheDir) {
    const server = await ensureServerBuilt();
    const archive = await buildProgramArchive(cacheDir, stdlibFor(cacheDir, kotlinHome().stdlibJar));
    return `Kotlin compile server built in ${server}; programs' class-data archive: ${archive ?? 'none (the JDK cannot dump one)'}`;
  },
  async close() {
    const c = compiler;
    compiler = undefined;
    compilerMode = undefined;
    archiveFor = undefined;
    programArchive = undefined;
    await c?.close();
  },
};
