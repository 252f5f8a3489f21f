/**
 * The judge's side of the runner function: a `ProgramRunner` (core) that sends a sample's
 * program and test inputs to the untrusted runner Lambda of its language and returns its runs,
 * so the verdicts come from the same scorers as locally (layers/core/scoring).
 *
 * Invocations are split to fit the runner (runner-plan.ts): the 6 MB request limit and the
 * runner's timeout. Each run gets a share of the 6 MB response; a run answered `truncated` is
 * asked again on its own with the whole budget, and recorded OLE if it still does not fit.
 */
import { HarnessError } from '#core/errors.ts';
import type { ProgramRun, RunRequest } from '#core/judging/index.ts';
import type { ProgramRunner, RunnerJob, RunnerResult } from '#core/judging/index.ts';
import type { InvokeResult } from '#aws/index.ts';
import {
  PAYLOAD_BUDGET_BYTES,
  parseWire,
  runnerRequest,
  RunnerErrorSchema,
  RunnerResponseSchema,
  type RunnerResponse,
  type WireRun,
} from './runner-protocol.ts';
import { planInvocations, RUNNER_TIME_BUDGET_MS } from './runner-plan.ts';

/** The isolation recorded for samples run by a runner function: `lambda-runner+<its sandbox level>`. */
export const LAMBDA_RUNNER_ISOLATION = 'lambda-runner';

export interface LambdaProgramRunnerOptions {
  /** Invokes the runner function synchronously (layers/aws/lambda-invoker.ts). */
  invoke: (payload: string) => Promise<InvokeResult>;
  functionName: string;
  payloadBudgetBytes?: number;
  timeBudgetMs?: number;
  /** Told when a runner ended its environment after an item (something survived or changed). */
  onDiscard?: (integrity: RunnerResponse['integrity']) => void;
}

type Answer = RunnerResponse;

export class LambdaProgramRunner implements ProgramRunner {
  private readonly budget: number;

  constructor(private readonly options: LambdaProgramRunnerOptions) {
    this.budget = options.payloadBudgetBytes ?? PAYLOAD_BUDGET_BYTES;
  }

  async run(job: RunnerJob): Promise<RunnerResult> {
    const requests: RunRequest[] = [];
    for (const build of job.runs) requests.push(await build());
    const plan = planInvocations(job.program, requests, { payloadBytes: this.budget, timeMs: this.options.timeBudgetMs ?? RUNNER_TIME_BUDGET_MS });
    const runs: ProgramRun[] = [];
    let compileMs: number | undefined;
    let isolation = '';
    for (const chunk of plan) {
      const batch = chunk.map((i) => requests[i] as RunRequest);
      const answer = await this.call(job, batch, Math.floor(this.budget / batch.length));
      isolation = answer.isolation;
      if (!answer.ok) {
        // The same program compiles the same way every time: a later chunk failing is the harness's fault.
        if (compileMs !== undefined) throw new HarnessError(`runner ${this.options.functionName}: the program compiled in one invocation and not in the next`);
        return { ok: false, diagnostics: answer.diagnostics, compileMs: answer.compileMs, isolation: `${LAMBDA_RUNNER_ISOLATION}+${isolation}` };
      }
      compileMs ??= answer.compileMs;
      if (answer.runs.length !== batch.length)
        throw new HarnessError(`runner ${this.options.functionName} answered ${answer.runs.length} of ${batch.length} runs`);
      for (const [k, run] of answer.runs.entries()) runs.push(await this.complete(job, batch[k] as RunRequest, run, batch.length));
    }
    return { ok: true, compileMs: compileMs ?? 0, runs: iterate(runs), isolation: `${LAMBDA_RUNNER_ISOLATION}+${isolation}` };
  }

  /** A truncated run is asked again alone (the whole response for it); still too large, it is OLE. */
  private async complete(job: RunnerJob, request: RunRequest, run: WireRun, batchSize: number): Promise<ProgramRun> {
    let final = run;
    if (final.truncated && batchSize > 1) {
      const again = await this.call(job, [request], this.budget);
      if (!again.ok || again.runs.length !== 1) throw new HarnessError(`runner ${this.options.functionName}: re-running one test alone did not answer one run`);
      final = again.runs[0] as WireRun;
    }
    const { truncated, ...rest } = final;
    return truncated ? { ...rest, termination: 'output', stdout: '', files: {} } : rest;
  }

  /** One invocation with the job's program and toolchain options and these runs. */
  private async call(job: RunnerJob, runs: RunRequest[], maxRunOutputBytes: number): Promise<Answer> {
    const result = await this.options.invoke(JSON.stringify(runnerRequest(job.program, runs, maxRunOutputBytes, job.toolchain)));
    if (result.functionError !== undefined) {
      const error = RunnerErrorSchema.safeParse(jsonOrUndefined(result.payload));
      // Not the error shape: keep the raw head.
      const detail = error.success ? `${error.data.errorType ?? 'Error'}: ${error.data.errorMessage ?? ''}` : result.payload.slice(0, 500);
      throw new HarnessError(`runner ${this.options.functionName} failed (${result.functionError}): ${detail}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(result.payload);
    } catch (cause) {
      throw new HarnessError(`runner ${this.options.functionName} answered no JSON: ${JSON.stringify(result.payload.slice(0, 100))}`, { cause });
    }
    // Untrusted (the environment ran model code): a malformed answer is the sample's SE with this reason, never a verdict.
    const answer = parseWire(RunnerResponseSchema, body, 'response');
    if (!answer.integrity.clean) this.options.onDiscard?.(answer.integrity);
    return answer;
  }
}

function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

async function* iterate(runs: ProgramRun[]): AsyncGenerator<ProgramRun> {
  for (const run of runs) yield run;
}
