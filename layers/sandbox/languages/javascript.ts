/**
 * JavaScript: the Node.js that runs polyeval (the Lambda image's own, /usr/bin/node
 * locally), CommonJS (`main.cjs`, whatever package.json surrounds the build), no inherited
 * environment. "Compiling" is `node --check` in the sandbox, so a SyntaxError is CE.
 *
 * MXEval's JavaScript tests `require("lodash")`; the pinned lodash is copied into the
 * machine-wide cache (0755, reachable by the sandbox uid) and found through NODE_PATH.
 * Memory: V8's heap is capped with --max-old-space-size (heap exhaustion is MLE); buffers
 * live outside that heap, so RLIMIT_AS also bounds the process, with room for what V8
 * reserves at start (about 700 MB of address space on Node 20).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ToolchainInfo } from '#core/ports.ts';
import { HarnessError } from '#core/errors.ts';
import type { LanguageRuntime, RuntimeContext } from '../runtime.ts';

/** Besides the heap cap: none (eval and Function stay, as in MXEval's plain `node`). */
const FLAGS: string[] = [];
/** Address space V8 reserves beyond the heap it may fill. */
const RESERVED_MB = 1024;

/**
 * The node that runs polyeval, and what the sandbox must show of it outside /usr: the
 * binary alone (it needs nothing else from its prefix). Never its directory: a node in
 * /tmp (or beside other files) would make that whole directory readable to the program.
 */
const NODE = process.execPath;
const prefix = (): string[] => (NODE.startsWith('/usr/') ? [] : [NODE]);

let modules: string | undefined;

/**
 * `<cache>/node-modules-<hash>/lodash`: the pinned lodash, where the sandbox can read it.
 * Executor images run this at build time (prebuild.mjs javascript): their cache is read-only.
 */
export function installModules(ctx: Pick<RuntimeContext, 'cacheDir'>): string {
  if (modules && existsSync(modules)) return modules;
  let home: string;
  try {
    home = dirname(createRequire(import.meta.url).resolve('lodash/package.json'));
  } catch (cause) {
    throw new HarnessError('lodash (MXEval JavaScript tests require it) is not installed beside polyeval', { cause });
  }
  const files = ['package.json', 'lodash.js'];
  const hash = createHash('sha256');
  for (const f of files) hash.update(readFileSync(join(home, f)));
  const dir = join(ctx.cacheDir, `node-modules-${hash.digest('hex').slice(0, 16)}`);
  if (!existsSync(dir)) {
    const partial = `${dir}.${process.pid}.tmp`;
    mkdirSync(join(partial, 'lodash'), { recursive: true, mode: 0o755 });
    for (const f of files) copyFileSync(join(home, f), join(partial, 'lodash', f));
    try {
      renameSync(partial, dir);
    } catch (error) {
      if (!existsSync(dir)) throw error; // else another process installed the same bytes
    }
  }
  modules = dir;
  return dir;
}

export const javascriptRuntime: LanguageRuntime = {
  id: 'javascript',
  sourceFile: 'main.cjs',
  async init(ctx) {
    installModules(ctx);
  },
  async toolchain(ctx): Promise<ToolchainInfo> {
    try {
      installModules(ctx);
      return {
        language: 'javascript',
        compiler: NODE,
        version: process.versions.node,
        flags: FLAGS,
        available: true,
        detail: 'node (CommonJS) with lodash on NODE_PATH',
      };
    } catch (cause) {
      return { language: 'javascript', available: false, detail: String(cause) };
    }
  },
  async cacheKey() {
    return `node ${process.versions.node}`;
  },
  async compile(ctx, buildDir) {
    const r = await ctx.sandboxed({ argv: [NODE, '--check', join(buildDir, 'main.cjs')], workDir: buildDir, readOnly: prefix(), env: {} });
    if (r.exitCode === 0) return { ok: true, diagnostics: '' };
    const diagnostics = r.stderr.split(`${buildDir}/`).join('');
    if (r.exitCode === 1 && /SyntaxError/u.test(r.stderr)) return { ok: false, diagnostics };
    throw new HarnessError(`node --check failed unexpectedly (exit ${r.exitCode}, ${r.signal ?? 'no signal'}): ${diagnostics.slice(0, 300)}`);
  },
  runCommand(buildDir, memoryMb, args) {
    if (!modules) throw new HarnessError('javascript runtime used before init()');
    return {
      argv: [NODE, `--max-old-space-size=${memoryMb}`, ...FLAGS, join(buildDir, 'main.cjs'), ...args],
      readOnly: [buildDir, modules, ...prefix()],
      env: { NODE_PATH: modules },
      addressSpaceMb: memoryMb + RESERVED_MB,
      processes: 32,
    };
  },
  unitTestProgram(s) {
    // MXEval JavaScript tests are top-level statements that throw on a wrong result: the
    // token is printed after the last of them. process.exit / process.reallyExit before
    // then never reach the print.
    const epilogue = ';\nconsole.log(process.argv[process.argv.length - 1]);\n';
    return `${s.prompt}${s.completion}\n${s.test}\n${epilogue}`;
  },
  prebuild: async (cacheDir) => `lodash for MXEval's JavaScript tests in ${installModules({ cacheDir })}`,
  isOutOfMemory: (stderr) => /JavaScript heap out of memory|Reached heap limit|Array buffer allocation failed|ERR_MEMORY_ALLOCATION_FAILED/u.test(stderr),
};
