/**
 * The `io-tests` scorer (DESIGN §6–7): compile once, run every test in a fresh sandbox,
 * compare outputs in the harness (expected outputs never enter the program's filesystem).
 * Policy lives here; the `ProgramRunner` (in process on the sandbox's `ProgramHost`, or an
 * untrusted runner function in AWS) only compiles and runs.
 */
import { HarnessError, InputError } from '../errors.ts';
import type { ToolchainOptions } from '../languages/index.ts';
import type { IoTest, IoTestsTask, LanguageId, ScoreOutcome, TestOutcome } from '../types.ts';
import { compareOutputs, headLines, runVerdict, sampleVerdict, type Termination } from './compare.ts';
import { excerpt } from './excerpt.ts';
import { hostRunner, runsOf, type ProgramRunner } from './program-runner.ts';

/** How many failing tests of a sample keep windows of their input and outputs. */
const TESTS_WITH_IO = 3;

/** Limits of one run. CPU time decides TLE; wall time is the backstop for sleeping programs. */
export interface RunLimits {
  cpuMs: number;
  wallMs: number;
  memoryMb: number;
}

/** What one sandboxed run of a program should see. */
export interface RunRequest {
  stdin: string;
  /** Files placed in the (otherwise empty) working directory before the run. */
  files?: { name: string; content: string }[];
  /** Working-directory files read back after the run, when the program wrote them. */
  collect?: string[];
  /** Extra command-line arguments for the program. */
  args?: string[];
  limits: RunLimits;
}

/** What one sandboxed run did. */
export interface ProgramRun {
  termination: Termination;
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  /** Head of stderr (capped). */
  stderr: string;
  files: Record<string, string>;
  runMs: number;
  cpuMs: number;
  peakMemoryKb: number;
}

/** A compiled (or interpreted) program ready to run any number of times. */
export interface PreparedProgram {
  run(request: RunRequest): Promise<ProgramRun>;
}

/** The result of compiling. A failed compilation is the program's fault (CE), never a throw. */
export type Preparation = { ok: true; program: PreparedProgram; compileMs: number } | { ok: false; diagnostics: string; compileMs: number };

/** What a unit-test program is assembled from (MXEval: prompt + completion + test). */
export interface UnitTestSource {
  language: LanguageId;
  prompt: string;
  completion: string;
  test: string;
  entryPoint: string;
  /** The job's toolchain options (a Kotlin language version, say). */
  toolchain?: ToolchainOptions;
}

/**
 * Compiles and runs untrusted programs (implemented by layers/sandbox). Throws
 * HarnessError only for its own failures.
 * @example
 * const prep = await host.prepare('cpp', code);
 * if (prep.ok) await prep.program.run({ stdin: '1 2\n', limits: { cpuMs: 1000, wallMs: 3000, memoryMb: 256 } });
 */
export interface ProgramHost {
  /** Builds `code`; `toolchain` are the job's options for its language's toolchain. */
  prepare(language: LanguageId, code: string, toolchain?: ToolchainOptions): Promise<Preparation>;
  /** Assembles prompt + completion + test with the runtime's token epilogue; run it with args [token]. */
  prepareUnitTest(source: UnitTestSource): Promise<Preparation>;
}

/** Reads a test file given by path (tests too large to inline). */
export type TestFileLoader = (path: string) => Promise<string>;

/** Wall clock allowed for a CPU limit: generous, because the machine may be loaded. */
export function wallLimitFor(cpuMs: number): number {
  return cpuMs * 2 + 2000;
}

const CHECKER_LIMITS: RunLimits = { cpuMs: 10_000, wallMs: 30_000, memoryMb: 1024 };

async function testText(task: IoTestsTask, test: IoTest, index: number, which: 'input' | 'output', load?: TestFileLoader): Promise<string> {
  const inline = which === 'input' ? test.input : test.output;
  if (inline !== undefined) return inline;
  const path = which === 'input' ? test.inputPath : test.outputPath;
  if (path === undefined) throw new InputError(`test ${index + 1} has no ${which}`, { file: task.id, field: `tests[${index}].${which}` });
  if (!load) throw new HarnessError(`test ${index + 1} of ${task.id} is stored at ${path} but no test file loader is configured`);
  return load(path);
}

/**
 * Scores one io-tests sample: every test runs (accuracy counts passed tests).
 * @example
 * const outcome = await scoreIoTests({ task, language: 'python', code }, host);
 */
export async function scoreIoTests(
  job: { task: IoTestsTask; language: LanguageId; code: string; timeScale?: number; toolchain?: ToolchainOptions },
  host: ProgramHost,
  options: {
    loadTestFile?: TestFileLoader;
    /** Where the sample's program runs (default: in process on `host`); checkers always run on `host`. */
    runner?: ProgramRunner;
  } = {},
): Promise<ScoreOutcome> {
  const { task } = job;
  const testsTotal = task.tests.length;
  const cpuMs = Math.round(task.timeLimitMs * (job.timeScale ?? 1));
  // CPU clock: the limit is CPU time, with a generous wall cap for a stuck process (fair on a
  // loaded machine). Wall clock: the limit is elapsed time, as a judge with a stopwatch measures.
  const wallMs = task.timeClock === 'wall' ? cpuMs : wallLimitFor(cpuMs);
  const limits: RunLimits = { cpuMs, wallMs, memoryMb: task.memoryLimitMb };
  // A task without a file stem is stdin/stdout only: no input file, nothing collected.
  const inName = task.name !== undefined ? `${task.name}.in` : undefined;
  const outName = task.name !== undefined ? `${task.name}.out` : undefined;
  // Inputs are kept from the request until the test is judged (the checker and excerpts need them).
  const inputs = new Map<number, string>();
  const requests = task.tests.map((test, i) => async (): Promise<RunRequest> => {
    const input = await testText(task, test, i, 'input', options.loadTestFile);
    inputs.set(i, input);
    return { stdin: input, files: inName ? [{ name: inName, content: input }] : [], collect: outName ? [outName] : [], limits };
  });
  const result = await (options.runner ?? hostRunner(host)).run({
    program: { kind: 'source', language: job.language, code: job.code },
    runs: requests,
    ...(job.toolchain ? { toolchain: job.toolchain } : {}),
  });
  const isolation = result.isolation !== undefined ? { isolation: result.isolation } : {};
  if (!result.ok) {
    return { verdict: 'CE', testsPassed: 0, testsTotal, compileMs: result.compileMs, error: headLines(result.diagnostics), ...isolation };
  }
  let checker: PreparedProgram | undefined;
  if (task.checker.kind === 'program') {
    // The checker is task material (it reads expected outputs): it runs beside the judge, never in the runner.
    const cp = await host.prepare(task.checker.language, task.checker.source);
    if (!cp.ok) throw new InputError(`checker does not compile: ${headLines(cp.diagnostics, 3)}`, { file: task.id, field: 'checker.source' });
    checker = cp.program;
  }
  const tests: TestOutcome[] = [];
  for await (const run of runsOf(result, testsTotal)) {
    const i = tests.length;
    const test = task.tests[i] as IoTest;
    const input = inputs.get(i) ?? (await testText(task, test, i, 'input', options.loadTestFile));
    inputs.delete(i);
    const base: TestOutcome = {
      name: test.name ?? `test-${i + 1}`,
      verdict: 'OK',
      runMs: run.runMs,
      cpuMs: run.cpuMs,
      peakMemoryKb: run.peakMemoryKb,
      exitCode: run.exitCode,
      signal: run.signal,
    };
    const keepIo = tests.filter((t) => t.io).length < TESTS_WITH_IO;
    const failed = runVerdict(run);
    const actual = (outName !== undefined ? run.files[outName] : undefined) ?? run.stdout;
    if (failed) {
      const io = keepIo ? { io: { input: excerpt(input), actual: excerpt(actual) } } : {};
      tests.push({ ...base, verdict: failed.verdict, detail: failed.detail, ...io });
      continue;
    }
    const expected = await testText(task, test, i, 'output', options.loadTestFile);
    const judged = await judge(task, checker, input, expected, actual);
    if (judged.equal) {
      tests.push({ ...base, verdict: 'OK' });
      continue;
    }
    const at = 'at' in judged ? judged.at : undefined;
    const io = keepIo ? { io: { input: excerpt(input), expected: excerpt(expected, at?.expected), actual: excerpt(actual, at?.actual) } } : {};
    tests.push({ ...base, verdict: 'WA', ...(judged.detail ? { detail: judged.detail } : {}), ...io });
  }
  const verdict = sampleVerdict(tests);
  const firstFailing = tests.find((t) => t.verdict !== 'OK');
  return {
    verdict,
    testsPassed: tests.filter((t) => t.verdict === 'OK').length,
    testsTotal,
    compileMs: result.compileMs,
    runMs: sum(tests.map((t) => t.runMs)),
    cpuMs: sum(tests.map((t) => t.cpuMs ?? 0)),
    peakMemoryKb: Math.max(0, ...tests.map((t) => t.peakMemoryKb ?? 0)),
    tests,
    ...(firstFailing?.detail ? { error: `${firstFailing.name}: ${firstFailing.detail}` } : {}),
    ...isolation,
  };
}

async function judge(task: IoTestsTask, checker: PreparedProgram | undefined, input: string, expected: string, actual: string) {
  switch (task.checker.kind) {
    case 'tokens':
      return compareOutputs(expected, actual);
    case 'float':
      return compareOutputs(expected, actual, {
        ...(task.checker.abs !== undefined ? { abs: task.checker.abs } : {}),
        ...(task.checker.rel !== undefined ? { rel: task.checker.rel } : {}),
      });
    case 'program': {
      if (!checker) throw new HarnessError('checker program was not prepared');
      const files = [
        { name: 'input.txt', content: input },
        { name: 'expected.txt', content: expected },
        { name: 'actual.txt', content: actual },
      ];
      const run = await checker.run({ stdin: '', files, args: ['input.txt', 'expected.txt', 'actual.txt'], limits: CHECKER_LIMITS });
      if (run.termination === 'exited' && run.exitCode === 0) return { equal: true };
      if (run.termination === 'exited') return { equal: false, detail: `checker rejected: ${headLines(run.stdout || run.stderr, 2, 200)}` };
      throw new HarnessError(`checker of ${task.id} failed (${run.termination}${run.signal ? ` ${run.signal}` : ''})`);
    }
    default: {
      const never: never = task.checker;
      throw new HarnessError(`unknown checker ${JSON.stringify(never)}`);
    }
  }
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
