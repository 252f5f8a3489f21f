/**
 * Python 3: `python3 -I -B` (isolated mode, no bytecode written). "Compiling" is a syntax
 * check in the sandbox, so a SyntaxError is CE as for compiled languages: MXEval's `exec`
 * compiles the whole program before running any of it, and fails it on the same errors.
 * The check is made by one long-lived checker in the sandbox (python-checker.ts), or, for a
 * source it cannot answer for, by a sandboxed interpreter of its own (the one-shot check);
 * both decide alike, from the same `compile()` and the same reading of its exception.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { ToolchainInfo } from '#core/ports.ts';
import { HarnessError } from '#core/errors.ts';
import { runningAsRoot } from '../isolation.ts';
import type { CompileResult, LanguageRuntime, RuntimeContext } from '../runtime.ts';
import { PythonSyntaxChecker } from './python-checker.ts';
import { PythonZygotePool } from './python-zygote.ts';

const run = promisify(execFile);

interface Interpreter {
  executable: string;
  prefix: string;
  version: string;
  detail: string;
}

let resolved: Promise<Interpreter | undefined> | undefined;

/** Whether every directory on the way to `path` is traversable by others (the sandbox uid). */
function reachableByOthers(path: string): boolean {
  if (!runningAsRoot()) return true;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === '/') return true;
  }
}

async function probe(command: string, env: Record<string, string>): Promise<Interpreter | undefined> {
  try {
    const { stdout } = await run(
      command,
      ['-I', '-c', 'import sys, platform; print(sys.executable); print(sys.base_prefix); print(platform.python_version())'],
      { env, timeout: 20_000 },
    );
    const [executable, prefix, version] = stdout.trim().split('\n');
    if (!executable || !prefix || !version) return undefined;
    accessSync(executable, constants.X_OK);
    return { executable, prefix, version, detail: '' };
  } catch {
    return undefined;
  }
}

/** The first `python3` on `path` (what a shell would run), or undefined. */
function onPath(path: string): string | undefined {
  for (const dir of path.split(':').filter(Boolean)) {
    const candidate = join(dir, 'python3');
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The PATH's python3 when the sandbox uid can reach it (pyenv under /root cannot), else
 * /usr/bin/python3. A python3 found in a folder the sandbox uid cannot reach is not started
 * to ask where its interpreter lives (a pyenv shim is a chain of bash scripts: a third of a
 * second of every run's start).
 */
async function resolveInterpreter(): Promise<Interpreter | undefined> {
  const PATH = process.env['PATH'] ?? '/usr/bin:/bin';
  const located = onPath(PATH);
  const fromPath = located && reachableByOthers(located) ? await probe('python3', { PATH, HOME: process.env['HOME'] ?? '/' }) : undefined;
  if (fromPath && reachableByOthers(fromPath.prefix)) return { ...fromPath, detail: `python3 from PATH (${fromPath.executable})` };
  const system = await probe('/usr/bin/python3', {});
  if (system) {
    const unreachable = fromPath?.executable ?? (located && located !== system.executable ? located : undefined);
    const why = unreachable ? `; ${unreachable} is not reachable by the sandbox uid` : '';
    return { ...system, detail: `system python3 (${system.executable})${why}` };
  }
  return undefined;
}

async function interpreter(): Promise<Interpreter> {
  resolved ??= resolveInterpreter();
  const found = await resolved;
  if (!found) throw new HarnessError('python3 not found (neither on PATH nor /usr/bin/python3)');
  return found;
}

const FLAGS = ['-I', '-B'];
let current: Interpreter | undefined;

/** Paths outside /usr the interpreter needs (a pyenv or venv prefix). */
function prefixPaths(i: Interpreter): string[] {
  return i.prefix.startsWith('/usr') ? [] : [i.prefix];
}

/** The one-shot check: the whole source compiled by a sandboxed interpreter of its own. */
const ONE_SHOT_CHECK = 'import sys\nsrc = open(sys.argv[1], encoding="utf-8").read()\ncompile(src, "main.py", "exec")';
/** What the one-shot check prints before compile()'s exception (its own frame). */
const ONE_SHOT_TRACEBACK = 'Traceback (most recent call last):\n  File "<string>", line 3, in <module>\n';
/** The exceptions that make a source CE rather than a harness failure. */
const SYNTAX_FAILURE = /(SyntaxError|IndentationError|TabError|ValueError)/u;

/** CE diagnostics from what the check printed: the exception, without the checker's own frames. */
function syntaxDiagnostics(stderr: string): string {
  return stderr.replace(/^Traceback[\s\S]*?(?= {2}File "main\.py")/mu, '');
}

/** One checker per executor context (each has its own isolation); all closed with the runtime. */
const checkers = new Map<RuntimeContext, PythonSyntaxChecker>();

function checkerFor(ctx: RuntimeContext, i: Interpreter): PythonSyntaxChecker | undefined {
  const service = ctx.service;
  if (!service) return undefined;
  let checker = checkers.get(ctx);
  if (!checker) {
    checker = new PythonSyntaxChecker((script) => service({ argv: [i.executable, ...FLAGS, '-c', script], readOnly: prefixPaths(i) }), {
      recycleAfter: 500,
      answerMs: 20_000,
    });
    checkers.set(ctx, checker);
  }
  return checker;
}

/** One zygote pool per executor context; all closed with the runtime. */
const zygotes = new Map<RuntimeContext, PythonZygotePool | undefined>();

/**
 * The context's zygotes, where it can start them (`programService`): not when
 * POLYEVAL_PYTHON_ZYGOTE=0, which runs every program as an interpreter of its own.
 */
function zygotesFor(ctx: RuntimeContext, i: Interpreter): PythonZygotePool | undefined {
  if (zygotes.has(ctx)) return zygotes.get(ctx);
  const start = ctx.programService;
  let pool: PythonZygotePool | undefined;
  if (start && process.env['POLYEVAL_PYTHON_ZYGOTE'] !== '0') {
    // The zygote sees the builds directory (under bubblewrap only the build of the sample it
    // serves, copied in: all of them would lie below the /tmp its children may read) and the
    // interpreter's prefix.
    const builds = join(ctx.cacheDir, 'builds');
    pool = new PythonZygotePool(
      async (script, limits) => {
        mkdirSync(builds, { recursive: true, mode: 0o755 });
        const service = await start({ argv: [i.executable, ...FLAGS, '-c', script], readOnly: [builds, ...prefixPaths(i)], shown: [builds], limits });
        return { ...service, builds: { path: builds, shown: service.shown[builds] ?? builds } };
      },
      { level: ctx.programWriters.level, landlock: ctx.programWriters.landlock, recycleAfter: 2000, ...(ctx.discard ? { discard: ctx.discard } : {}) },
    );
  }
  zygotes.set(ctx, pool);
  return pool;
}

async function oneShotCheck(ctx: RuntimeContext, i: Interpreter, buildDir: string): Promise<CompileResult> {
  const r = await ctx.sandboxed({
    argv: [i.executable, ...FLAGS, '-c', ONE_SHOT_CHECK, join(buildDir, 'main.py')],
    workDir: buildDir,
    readOnly: prefixPaths(i),
  });
  if (r.exitCode === 0) return { ok: true, diagnostics: '' };
  if (r.exitCode === 1 && SYNTAX_FAILURE.test(r.stderr)) return { ok: false, diagnostics: syntaxDiagnostics(r.stderr) };
  throw new HarnessError(`python syntax check failed unexpectedly (exit ${r.exitCode}, ${r.signal ?? 'no signal'}): ${r.stderr.slice(0, 300)}`);
}

export const pythonRuntime: LanguageRuntime = {
  id: 'python',
  sourceFile: 'main.py',
  async init() {
    current = await interpreter();
  },
  async toolchain(): Promise<ToolchainInfo> {
    try {
      const i = await interpreter();
      return { language: 'python', compiler: i.executable, version: i.version, flags: FLAGS, available: true, detail: i.detail };
    } catch (cause) {
      return { language: 'python', available: false, detail: String(cause) };
    }
  },
  async cacheKey() {
    const i = await interpreter();
    return `${i.executable} ${i.version} ${FLAGS.join(' ')}`;
  },
  async compile(ctx: RuntimeContext, buildDir: string) {
    const i = await interpreter();
    const answer = await checkerFor(ctx, i)?.check(readFileSync(join(buildDir, 'main.py')));
    if (answer?.compiled) return { ok: true, diagnostics: '' };
    // The exception read exactly as the one-shot check's stderr is; any other answer goes to it.
    const printed = answer ? `${ONE_SHOT_TRACEBACK}${answer.exception}` : undefined;
    if (printed !== undefined && SYNTAX_FAILURE.test(printed)) return { ok: false, diagnostics: syntaxDiagnostics(printed) };
    return oneShotCheck(ctx, i, buildDir);
  },
  runCommand(buildDir, memoryMb, args) {
    if (!current) throw new HarnessError('python runtime used before init()');
    return {
      argv: [current.executable, ...FLAGS, join(buildDir, 'main.py'), ...args],
      readOnly: [buildDir, ...prefixPaths(current)],
      addressSpaceMb: memoryMb + 64,
      processes: 16,
    };
  },
  unitTestProgram(s) {
    // A `check(candidate)` test is called with the entry point, as MXEval and human-eval
    // do, unless the test calls it itself (say in an `if __name__ == "__main__":` block,
    // which runs: the program is run as a script).
    const definesCheck = /^\s*def\s+check\s*\(/mu.test(s.test);
    const callsCheck = /^(?!\s*def\s)\s*check\s*\(/mu.test(s.test);
    const check = definesCheck && !callsCheck ? `\ncheck(${s.entryPoint})\n` : '\n';
    const epilogue = 'import sys as _polyeval_sys\nprint(_polyeval_sys.argv[-1], flush=True)\n';
    return `${s.prompt}${s.completion}\n\n${s.test}\n${check}${epilogue}`;
  },
  isOutOfMemory: (stderr) => /\bMemoryError\b/u.test(stderr),
  async runProgram(ctx, spec) {
    // Only the runs this runtime's runCommand describes: the interpreter, its flags, main.py.
    if (!current || spec.argv[0] !== current.executable || spec.argv[1] !== FLAGS[0] || spec.argv[2] !== FLAGS[1] || spec.env) return undefined;
    return zygotesFor(ctx, current)?.run(spec);
  },
  async close() {
    const pools = [...zygotes.values()];
    zygotes.clear();
    await Promise.all(pools.map((pool) => pool?.close()));
    for (const checker of checkers.values()) checker.close();
    checkers.clear();
  },
};
