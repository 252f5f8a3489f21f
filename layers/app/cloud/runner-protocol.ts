/**
 * What the trusted judge sends an untrusted runner function and what it answers (DESIGN §7),
 * with the zod schemas both sides parse with. A request carries the program and, per run,
 * stdin, the files to place, the files to collect, arguments and limits — the schema has no
 * place for an expected output, and `.strict()` refuses one.
 *
 * Size: a synchronous Lambda invocation takes and returns at most 6 MB each way ("For
 * synchronous invocations, the maximum payload size is 6 MB": Lambda API reference, Invoke).
 * The runner has no network at all, so nothing can be staged elsewhere (no presigned URL): the
 * judge splits a sample's tests over several invocations when their inputs do not fit, refuses
 * (SE, with the sizes) a single test whose input alone cannot fit, and gives each run a share of
 * the response; a run whose output exceeds its share is answered `truncated` and asked again on
 * its own with the whole response, and an output that cannot fit even then is OLE
 * (layers/app/cloud/lambda-runner.ts).
 */
import { z } from 'zod';
import { HarnessError } from '#core/errors.ts';
import type { ToolchainOptions } from '#core/languages/index.ts';
import type { ProgramRun, RunRequest } from '#core/judging/index.ts';
import type { RunnerProgram } from '#core/judging/index.ts';
import { TerminationSchema } from '#core/judging/index.ts';

/** Lambda's synchronous invocation payload limit, request and response alike (6 MB). */
export const INVOKE_PAYLOAD_BYTES = 6 * 1024 * 1024;
/** What a request or response may use of it: the rest is room for the envelope and estimates. */
export const PAYLOAD_BUDGET_BYTES = INVOKE_PAYLOAD_BYTES - 256 * 1024;

const Limits = z.object({ cpuMs: z.number().int().positive(), wallMs: z.number().int().positive(), memoryMb: z.number().int().positive() }).strict();
const File = z.object({ name: z.string(), content: z.string() }).strict();

const RunRequestSchema = z
  .object({
    stdin: z.string(),
    files: z.array(File).optional(),
    collect: z.array(z.string()).optional(),
    args: z.array(z.string()).optional(),
    limits: Limits,
  })
  .strict();

const ProgramSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('source'), language: z.string().min(1), code: z.string() }).strict(),
  z
    .object({
      kind: z.literal('unit-test'),
      source: z.object({ language: z.string().min(1), prompt: z.string(), completion: z.string(), test: z.string(), entryPoint: z.string() }).strict(),
    })
    .strict(),
]);

/** One invocation of a runner: a program and the runs to make with it. */
export const RunnerRequestSchema = z
  .object({
    version: z.literal(1),
    program: ProgramSchema,
    runs: z.array(RunRequestSchema).min(1),
    /** Bytes of stdout + collected files (JSON-encoded) a run may return; beyond, it is answered `truncated`. */
    maxRunOutputBytes: z.number().int().positive(),
    /** The job's toolchain options (a Kotlin language version), given to the compile with the program. */
    toolchain: z
      .object({ languageVersion: z.string().min(1).optional() })
      .strict()
      .optional(),
  })
  .strict();
export type RunnerRequest = z.infer<typeof RunnerRequestSchema>;

/**
 * One invocation carrying several programs (samples of one task, runner-handoff.ts
 * `combineHandoffs`): each element is a whole single request — its own program, runs, output
 * share and toolchain — and the runner compiles and runs each as it runs one alone (own work
 * directory, same sandbox and limits, the after-item check after each; functions/runner/serve.ts).
 * A single request stays valid beside it (records of either shape may be in flight).
 */
export const RunnerBatchRequestSchema = z.object({ version: z.literal(1), programs: z.array(RunnerRequestSchema).min(1) }).strict();
export type RunnerBatchRequest = z.infer<typeof RunnerBatchRequestSchema>;

/** Whether a runner request (the event, or a hand-off's `request`) carries several programs. */
export function isBatchRequest(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'programs' in value && !('program' in value);
}

// The answer comes from the environment that ran model code: read strictly (`.strict()`
// everywhere), so anything beyond the protocol is refused, never carried into a verdict.
const WireRun = z
  .object({
    termination: TerminationSchema,
    exitCode: z.number().int().nullable(),
    signal: z.string().nullable(),
    stdout: z.string(),
    stderr: z.string(),
    files: z.record(z.string(), z.string()),
    runMs: z.number(),
    cpuMs: z.number(),
    peakMemoryKb: z.number(),
    /** The output was over `maxRunOutputBytes`: stdout and files are left out. */
    truncated: z.boolean().optional(),
  })
  .strict();
export type WireRun = z.infer<typeof WireRun>;

/** What the runner did after the item: the environment is discarded unless clean. */
const Integrity = z
  .object({ clean: z.boolean(), survivors: z.array(z.object({ pid: z.number(), command: z.string() }).strict()), changes: z.array(z.string()) })
  .strict();

/** A runner's answer. */
export const RunnerResponseSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(false), diagnostics: z.string(), compileMs: z.number(), isolation: z.string(), integrity: Integrity }).strict(),
  z.object({ ok: z.literal(true), compileMs: z.number(), runs: z.array(WireRun), isolation: z.string(), integrity: Integrity }).strict(),
]);
export type RunnerResponse = z.infer<typeof RunnerResponseSchema>;

/** One program of a batch that the runner could not serve (a harness failure, or not run after an earlier one left the environment unclean). */
export const RunnerProgramErrorSchema = z.object({ errorType: z.string(), errorMessage: z.string() }).strict();
export type RunnerProgramError = z.infer<typeof RunnerProgramErrorSchema>;

/** A runner's answer to a batch request: one answer per program, in order, each as a single request's answer or its error. */
export interface RunnerBatchResponse {
  version: 1;
  programs: (RunnerResponse | RunnerProgramError)[];
}

/** A runner's error answer (a function error): Lambda's `{ errorType, errorMessage }`. */
export const RunnerErrorSchema = z.object({ errorType: z.string().optional(), errorMessage: z.string().optional() });

/** Parses what a runner was sent or answered; anything else is the harness's fault. */
export function parseWire<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new HarnessError(
      `malformed runner ${what}: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; ')}`,
    );
  return parsed.data;
}

/** A request from the port's types (the wire form is the same shape). */
export function runnerRequest(program: RunnerProgram, runs: readonly RunRequest[], maxRunOutputBytes: number, toolchain?: ToolchainOptions): RunnerRequest {
  return { version: 1, program, runs: runs.map((r) => ({ ...r })), maxRunOutputBytes, ...(toolchain ? { toolchain } : {}) };
}

/** Bytes a string takes inside a JSON document (escapes included). */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/** Head of stderr a run returns at most: the judge keeps a few head lines of it. */
const STDERR_BYTES = 8 * 1024;

/**
 * A run's answer within `maxBytes`: stderr is cut to its head (at most a quarter of the share),
 * and when stdout and the collected files still do not fit they are dropped and the run says so.
 */
export function fitRun(run: ProgramRun, maxBytes: number): WireRun {
  const stderr = run.stderr.slice(0, Math.min(STDERR_BYTES, Math.floor(maxBytes / 4)));
  const size = jsonBytes(run.stdout) + jsonBytes(run.files) + jsonBytes(stderr);
  return size <= maxBytes ? { ...run, stderr } : { ...run, stderr, stdout: '', files: {}, truncated: true };
}
