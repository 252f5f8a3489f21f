// Shared fixtures of the sandbox tests: a hand-written io-tests task, a per-file executor
// in its own temporary directories (sandboxSuite), and scans for leftover processes and files.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { IoTestsTask, UnitTestsTask } from '#core/types.ts';
import { createSandboxExecutor, type SandboxExecutor, type SandboxExecutorOptions } from '#sandbox/index.ts';

export function sumTask(overrides: Partial<IoTestsTask> = {}): IoTestsTask {
  return {
    kind: 'io-tests',
    id: 'sum',
    benchmark: 'handmade',
    split: 'test',
    slices: {},
    name: 'sum',
    statement: 'Add two numbers.',
    inputSpec: 'a b',
    outputSpec: 'a+b',
    examples: [],
    tests: [
      { input: '1 2\n', output: '3\n' },
      { input: '40 2\n', output: '42\n' },
      { input: '-5 5\n', output: '0\n' },
    ],
    timeLimitMs: 1000,
    memoryLimitMb: 128,
    checker: { kind: 'tokens' },
    solutions: {},
    ...overrides,
  };
}

export function unitTask(language: string, test: string, entryPoint = 'add'): UnitTestsTask {
  return {
    kind: 'unit-tests',
    id: `${language}/add`,
    benchmark: 'handmade',
    split: 'test',
    slices: {},
    language,
    prompt: '',
    entryPoint,
    test,
    canonicalSolution: '',
  };
}

/** A fresh root holding this test file's cache and work directories. */
export function scratch(label: string): { root: string; cacheDir: string; workRoot: string } {
  const root = mkdtempSync(join(tmpdir(), `pe-${label}-`));
  chmodSync(root, 0o755); // the sandbox uid must traverse it
  return { root, cacheDir: join(root, 'cache'), workRoot: join(root, 'work') };
}

function cwdOf(pid: string): string {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return ''; // exited, or not ours to inspect
  }
}

/**
 * A process of one of the executor's own long-lived services (the Python syntax checker):
 * bubblewrap, the supervisor and the interpreter all work in `<workRoot>/service-…`, the
 * service's working directory (runtime-context.ts `service`). A program's leftovers work in
 * its own per-test directory, never there: under bubblewrap the service directory is not
 * mounted in a program's sandbox at all.
 */
function isServiceProcess(cwd: string): boolean {
  return /\/work\/service-[^/]+$/u.test(cwd);
}

/** Pids of live processes, other than the executor's services, whose command line or working directory mentions `marker`. */
export function processesMentioning(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/u.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      const cwd = cwdOf(entry);
      if ((cmdline.includes(marker) || cwd.includes(marker)) && state !== 'Z' && !(cwd.startsWith(marker) && isServiceProcess(cwd))) found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/**
 * What is left in `workRoot` besides the executor's service directories (a program's work
 * directory must be gone), once the executor's trash (layers/sandbox/trash.ts, emptied in the
 * background) has removed what it was given: waits (bounded) for it; its leftovers are named `trash-…/<n>`.
 */
export async function leftoverWork(workRoot: string, waitMs = 10_000): Promise<string[]> {
  const left = (): string[] =>
    readdirSync(workRoot).flatMap((name) => {
      if (name.startsWith('service-')) return [];
      if (!name.startsWith('trash-')) return [name];
      try {
        return readdirSync(join(workRoot, name)).map((entry) => `${name}/${entry}`);
      } catch {
        return []; // emptied and removed meanwhile
      }
    });
  const until = Date.now() + waitMs;
  let found = left();
  while (found.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    found = left();
  }
  return found;
}

/** Waits (bounded) until no process mentions the marker; returns those still alive. */
export async function settledProcesses(marker: string, waitMs = 10_000): Promise<number[]> {
  const until = Date.now() + waitMs;
  let alive = processesMentioning(marker);
  while (alive.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 200));
    alive = processesMentioning(marker);
  }
  return alive;
}

/**
 * One real sandbox executor for a test file: built in its own scratch folders before the
 * file's tests (the first build of the supervisor, PCH or compile server can take minutes),
 * closed and its folders removed after them.
 */
export function sandboxSuite(
  label: string,
  options: Omit<SandboxExecutorOptions, 'cacheDir' | 'workRoot'> = {},
): { readonly dirs: ReturnType<typeof scratch>; readonly executor: SandboxExecutor } {
  const dirs = scratch(label);
  let executor: SandboxExecutor | undefined;
  beforeAll(async () => {
    executor = await createSandboxExecutor({ ...options, cacheDir: dirs.cacheDir, workRoot: dirs.workRoot });
  }, 600_000);
  afterAll(async () => {
    await executor?.close();
    rmSync(dirs.root, { recursive: true, force: true });
  });
  return {
    dirs,
    get executor(): SandboxExecutor {
      if (!executor) throw new Error(`the ${label} sandbox executor is not built (used outside a test?)`);
      return executor;
    },
  };
}
