/**
 * One invocation of an untrusted runner function: parse the judge's request (a program and
 * its runs' inputs, never an expected output), compile and run in this container's sandbox,
 * answer with each run's outputs, exit status, time and memory, then check that the program
 * left nothing behind. The answer says whether this environment must be discarded; the
 * Runtime API loop (runtime-api.ts) does that after posting the answer.
 */
import { HarnessError } from '#core/errors.ts';
import type { ProgramHost } from '#core/judging/index.ts';
import { hostRunner } from '#core/judging/index.ts';
import {
  fitRun,
  isBatchRequest,
  parseWire,
  RunnerBatchRequestSchema,
  RunnerRequestSchema,
  type RunnerBatchResponse,
  type RunnerProgramError,
  type RunnerRequest,
  type RunnerResponse,
  type WireRun,
} from '#app/cloud/runner-protocol.ts';
import type { IntegrityReport } from '#sandbox/integrity.ts';

/** Compiler diagnostics returned at most (the judge keeps a few head lines). */
const DIAGNOSTICS_BYTES = 64 * 1024;

/** What serves an invocation: this container's sandbox and its after-item check. */
export interface RunnerSandbox {
  get(): Promise<{ host: ProgramHost; isolationReport: { label: string } }>;
  afterItem(): Promise<IntegrityReport>;
}

/** The answer to post (a response, or an error the judge sees as a function error) and whether to end this environment. */
type Body = RunnerResponse extends infer R ? (R extends unknown ? Omit<R, 'integrity'> : never) : never;

export type Served =
  { response: RunnerResponse | RunnerBatchResponse; discard: boolean } | { error: { errorType: string; errorMessage: string }; discard: boolean };

async function run(request: RunnerRequest, host: ProgramHost, isolation: string): Promise<Body> {
  // The job's toolchain options travel with the request to the compile (nothing process-wide).
  const result = await hostRunner(host).run({
    program: request.program,
    runs: request.runs.map((r) => async () => r),
    ...(request.toolchain ? { toolchain: request.toolchain } : {}),
  });
  if (!result.ok) return { ok: false, diagnostics: result.diagnostics.slice(0, DIAGNOSTICS_BYTES), compileMs: result.compileMs, isolation };
  const runs: WireRun[] = [];
  for await (const r of result.runs) runs.push(fitRun(r, request.maxRunOutputBytes));
  return { ok: true, compileMs: result.compileMs, runs, isolation };
}

/**
 * The request in an event: the event itself (a synchronous invoke), or its `request` when the
 * judge handed off asynchronously (layers/app/cloud/runner-handoff.ts) — the `handoff` beside it
 * is the judge's, for its continuation, and is never read here.
 */
function requestOf(event: unknown): unknown {
  return typeof event === 'object' && event !== null && ('handoff' in event || 'handoffs' in event) && 'request' in event
    ? (event as { request: unknown }).request
    : event;
}

/** Serves one invocation event. Never throws: a failure is an error answer, and the check still runs. */
export async function serveInvocation(event: unknown, sandbox: RunnerSandbox): Promise<Served> {
  const request = requestOf(event);
  return isBatchRequest(request) ? serveBatch(request, sandbox) : serveOne(request, sandbox);
}

/** One program: compiled and run, then the after-item check. Never throws. */
async function serveOne(request: unknown, sandbox: RunnerSandbox): Promise<Served> {
  let body: Body | undefined;
  let failure: Error | undefined;
  try {
    const parsed = parseWire(RunnerRequestSchema, request, 'request');
    const executor = await sandbox.get();
    body = await run(parsed, executor.host, executor.isolationReport.label);
  } catch (error) {
    failure = error instanceof Error ? error : new HarnessError(String(error));
  }
  let integrity: IntegrityReport;
  try {
    integrity = await sandbox.afterItem();
  } catch (error) {
    // A check that cannot run cannot vouch for this environment.
    integrity = { clean: false, survivors: [], changes: [`after-item check failed: ${(error as Error).message}`] };
  }
  const discard = !integrity.clean;
  if (body === undefined) return { error: { errorType: failure?.name ?? 'HarnessError', errorMessage: failure?.message ?? 'unknown failure' }, discard };
  return { response: { ...body, integrity }, discard };
}

/**
 * Several programs (samples of one task) in one invocation: each is served exactly as a single
 * request is — its own work directory, the same sandbox and limits, the after-item check after
 * it — and answered on its own, so one program's failure is that sample's answer alone. What
 * the programs share is this environment's set-up (the sandbox, the compile server, the
 * runtime already started). Once a program leaves something behind, the rest are not run here
 * (a survivor could see their work): each is answered with an error, which its judge retries in
 * another invocation, and the environment is ended after the answer.
 */
async function serveBatch(request: unknown, sandbox: RunnerSandbox): Promise<Served> {
  const parsed = RunnerBatchRequestSchema.safeParse(request);
  if (!parsed.success) return serveOne(request, sandbox); // the same malformed-request error and check as a single request
  const programs: (RunnerResponse | RunnerProgramError)[] = [];
  let discard = false;
  for (const program of parsed.data.programs) {
    if (discard) {
      programs.push({ errorType: 'RunnerDiscarded', errorMessage: 'not run: an earlier program in this invocation left something behind' });
      continue;
    }
    const served = await serveOne(program, sandbox);
    discard = served.discard;
    programs.push('response' in served ? (served.response as RunnerResponse) : served.error);
  }
  return { response: { version: 1, programs }, discard };
}
