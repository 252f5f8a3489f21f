/**
 * The runner port: what compiles a sample's program and makes its runs, kept apart from what
 * judges them (io-tests.ts, unit-tests.ts compare outputs and decide verdicts), so the verdict
 * logic is written once and runs the same locally and in the cloud. A runner is given the
 * program and each run's stdin, files, arguments and limits — never an expected output.
 *
 * Locally the runner is {@link hostRunner} over the sandbox's `ProgramHost`, in process. In
 * AWS it is an untrusted runner function that holds no permissions (layers/app/cloud/
 * lambda-runner.ts invokes it; functions/runner serves it).
 */
import { HarnessError } from '../errors.ts';
import type { ToolchainOptions } from '../languages/index.ts';
import type { LanguageId } from '../types.ts';
import type { ProgramHost, ProgramRun, RunRequest, UnitTestSource } from './io-tests-judge.ts';

/** The program a runner builds: a sample's code as is, or a unit-test program assembled by the runtime. */
export type RunnerProgram = { kind: 'source'; language: LanguageId; code: string } | { kind: 'unit-test'; source: UnitTestSource };

/** One sample's work for a runner. */
export interface RunnerJob {
  program: RunnerProgram;
  /** Each run's request, built on demand (an in-process runner holds one test input at a time). */
  runs: readonly (() => Promise<RunRequest>)[];
  /** The job's toolchain options (a Kotlin language version), given to the compile. */
  toolchain?: ToolchainOptions;
}

/**
 * What a runner did. `runs` yields one result per request, in order (lazily for an in-process
 * runner, so the judge holds one output at a time). `isolation` names the runner's isolation
 * level when it is not this process's sandbox (e.g. `lambda-runner+rlimits+seccomp+landlock`).
 */
export type RunnerResult =
  | { ok: false; diagnostics: string; compileMs: number; isolation?: string }
  | { ok: true; compileMs: number; runs: AsyncIterable<ProgramRun>; isolation?: string };

/**
 * Compiles and runs one sample's program. Throws HarnessError only for its own failures.
 * @example
 * const result = await hostRunner(host).run({ program: { kind: 'source', language: 'python', code }, runs: [async () => request] });
 * if (result.ok) for await (const run of result.runs) console.log(run.stdout);
 */
export interface ProgramRunner {
  run(job: RunnerJob): Promise<RunnerResult>;
}

/**
 * The in-process runner: compiles on `host` and makes each run when the judge asks for its
 * result, one at a time, in order.
 * @example
 * const runner = hostRunner(sandboxHost);
 */
export function hostRunner(host: ProgramHost): ProgramRunner {
  return {
    async run(job) {
      const { program, toolchain } = job;
      const prep =
        program.kind === 'source'
          ? await host.prepare(program.language, program.code, toolchain)
          : await host.prepareUnitTest({ ...program.source, ...(toolchain ? { toolchain } : {}) });
      if (!prep.ok) return { ok: false, diagnostics: prep.diagnostics, compileMs: prep.compileMs };
      const prepared = prep.program;
      async function* runs(): AsyncGenerator<ProgramRun> {
        for (const request of job.runs) yield await prepared.run(await request());
      }
      return { ok: true, compileMs: prep.compileMs, runs: runs() };
    },
  };
}

/**
 * Every run of a result, in order, checked against the number requested: a runner that
 * answers for fewer or more runs than it was given is the harness's fault.
 */
export async function* runsOf(result: Extract<RunnerResult, { ok: true }>, expected: number): AsyncGenerator<ProgramRun> {
  let count = 0;
  for await (const run of result.runs) {
    count += 1;
    if (count > expected) throw new HarnessError(`the runner returned more than the ${expected} runs it was given`);
    yield run;
  }
  if (count !== expected) throw new HarnessError(`the runner returned ${count} of the ${expected} runs it was given`);
}
