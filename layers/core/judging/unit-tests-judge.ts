/**
 * The `unit-tests` scorer (MXEval, DESIGN §6): program = prompt + completion + test, plus a
 * runtime-specific epilogue that prints a per-execution token after the test's last
 * statement. The sample passes only when the program exits 0 AND printed the token.
 *
 * The token reaches the program as its last command-line argument rather than inside the
 * source, so n identical samples share one compilation. This defends against completions
 * that exit early by accident or sloppiness (the failure mode seen in practice); a program
 * written to read its own argv and print it could fake a pass, which is outside the threat
 * model of a capability benchmark.
 */
import type { ToolchainOptions } from '../languages/index.ts';
import { DEFAULT_TEST_MEMORY_MB } from '../ports.ts';
import type { ScoreOutcome, UnitTestsTask } from '../types.ts';
import { headLines, unitTestVerdict } from './compare.ts';
import { HarnessError } from '../errors.ts';
import { wallLimitFor, type ProgramHost, type ProgramRun, type RunLimits } from './io-tests-judge.ts';
import { hostRunner, runsOf, type ProgramRunner } from './program-runner.ts';

/** Default limits of a unit-test run (MXEval tasks carry none); the JVM needs room. */
export const UNIT_TEST_LIMITS: RunLimits = { cpuMs: 10_000, wallMs: wallLimitFor(10_000), memoryMb: DEFAULT_TEST_MEMORY_MB };

/**
 * Scores one unit-tests sample.
 * @example
 * const outcome = await scoreUnitTests({ task, language: 'kotlin', code }, host, { token: () => randomHex() });
 */
export async function scoreUnitTests(
  job: { task: UnitTestsTask; language: string; code: string; timeScale?: number; toolchain?: ToolchainOptions },
  host: ProgramHost,
  options: {
    token: () => string;
    limits?: RunLimits;
    /** Where the program runs (default: in process on `host`). */
    runner?: ProgramRunner;
  },
): Promise<ScoreOutcome> {
  const { task } = job;
  const base = options.limits ?? UNIT_TEST_LIMITS;
  const scale = job.timeScale ?? 1;
  const cpuMs = Math.round(base.cpuMs * scale);
  const limits: RunLimits = { cpuMs, wallMs: Math.max(Math.round(base.wallMs * scale), wallLimitFor(cpuMs)), memoryMb: base.memoryMb };
  const token = options.token();
  const source = { language: job.language, prompt: task.prompt, completion: job.code, test: task.test, entryPoint: task.entryPoint };
  const result = await (options.runner ?? hostRunner(host)).run({
    program: { kind: 'unit-test', source },
    runs: [async () => ({ stdin: '', args: [token], limits })],
    ...(job.toolchain ? { toolchain: job.toolchain } : {}),
  });
  const isolation = result.isolation !== undefined ? { isolation: result.isolation } : {};
  if (!result.ok) return { verdict: 'CE', testsPassed: 0, testsTotal: 1, compileMs: result.compileMs, error: headLines(result.diagnostics), ...isolation };
  let run: ProgramRun | undefined;
  for await (const r of runsOf(result, 1)) run = r;
  if (run === undefined) throw new HarnessError('the runner returned no run');
  const judged = unitTestVerdict(run, token);
  const detail = judged.verdict === 'OK' ? undefined : [judged.detail, headLines(run.stderr, 5, 500)].filter(Boolean).join(': ');
  return {
    verdict: judged.verdict,
    testsPassed: judged.verdict === 'OK' ? 1 : 0,
    testsTotal: 1,
    compileMs: result.compileMs,
    runMs: run.runMs,
    cpuMs: run.cpuMs,
    peakMemoryKb: run.peakMemoryKb,
    tests: [
      {
        name: task.entryPoint || 'test',
        verdict: judged.verdict,
        runMs: run.runMs,
        cpuMs: run.cpuMs,
        peakMemoryKb: run.peakMemoryKb,
        exitCode: run.exitCode,
        signal: run.signal,
        ...(detail ? { detail } : {}),
      },
    ],
    ...(detail ? { error: detail } : {}),
    ...isolation,
  };
}
