/**
 * The simulated model and runner of a RoCode-style run (the "suma" tasks of
 * sim/rocode-generator.ts): the provider answers each (task, sample) with one of the
 * generator's programs in a fixed mix (OK, WA, RE, TLE), and the runner function "runs" a
 * program by what it is — the sum of the numbers on stdin, or off by one, or a crash, or a
 * timeout on the large test — so the real judge (scoreIoTests) gives known verdicts.
 *
 * Durations are assumptions, named here: a model call of MODEL_CALL_MS; a runner's compile
 * and per-test times by language (PROFILES: Python's measured on the real runner, MEASURED_RUNNER;
 * C++'s close to what bench/rocode-scale measured on one core; Kotlin's from the measured
 * figures in docs/sandbox.md); the token counts of a RoCode
 * prompt and answer. A Kotlin run is a Kotlin HumanEval-style one (./kotlin-tasks.ts, the
 * `unit-tests` scorer): one program per sample, compiled by the runner's compile server.
 */
import type { Generation, GenerateRequest, Provider } from '#core/models/provider.ts';
import {
  isBatchRequest,
  RunnerBatchRequestSchema,
  RunnerRequestSchema,
  type RunnerRequest,
  type RunnerResponse,
  type WireRun,
} from '#app/cloud/runner-protocol.ts';
import { benchProgram, type AnswerKind, type BenchLanguage } from '../rocode-generator.ts';
import { KOTLIN_COMPLETIONS, kotlinKindOf, type KotlinKind } from './kotlin-tasks.ts';
import { CallPolicy } from '#providers/call-policy.ts';
import { classifySdkError } from '#providers/failures.ts';
import { resolveOptions } from '#providers/options.ts';
import { GENERATE_PROVIDER_OPTIONS } from '#app/cloud/retry-budget.ts';
import type { ModelQuotas } from './limits/model-quota.ts';
import { ONE_VCPU_MB } from '#app/cloud/function-memory.ts';
import type { VirtualTime } from './virtual-time.ts';

/** The languages the simulation runs: RoCode's Python and C++, and Kotlin HumanEval's Kotlin. */
export type SimLanguage = BenchLanguage | 'kotlin';
export const SIM_LANGUAGES: readonly SimLanguage[] = ['python', 'cpp', 'kotlin'];

export const MODEL_CALL_MS = 3_000;
export const USAGE = { promptTokens: 650, completionTokens: 220 } as const;

/**
 * The runner's times by language (ms): a compilation, one test's run, and what an environment's
 * first compilation adds (Kotlin's compile server JVM starting in a fresh runner environment).
 *
 * Kotlin, from docs/sandbox.md's measured figures (2-core machine, idle): a compilation by the
 * warm compile server 320 ms (`npm run bench kotlin`: 0.32 s per sample), a cold `kotlinc`
 * 4.19 s (the same bench), taken as the first compilation of a new environment, whose server
 * starts then (so it adds 4,190 − 320 ms); the program's JVM run 195 ms: the Kotlin fidelity
 * set's 27.8 CPU-s over 54 samples (515 ms each, `npm run bench fidelity`) less the compile.
 *
 * Compiles and runs are single-threaded: their figures are one core's, and cpuBoundMs stretches
 * them below one vCPU. (A warm Kotlin compilation kept 0.35 of a core busy per wall second in
 * `npm run bench function-memory`, on a loaded machine: no second core used.) The compile
 * server's start is not: a cold `kotlinc` took 7.1 CPU-s (user + sys) beside its 4.19 s wall
 * time on the idle 2-core machine, 1.7 cores (`firstCompileCpuPerWall`), so its start takes
 * longer in a runner of fewer than 1.7 vCPUs (runnerStartMs).
 */
export const PROFILES: Record<SimLanguage, { compileMs: number; testMs: number; firstCompileExtraMs: number; firstCompileCpuPerWall: number }> = {
  // Python: MEASURED_RUNNER.python's CPU figures (was 60 and 45, from a local run before the zygote).
  python: { compileMs: 34, testMs: 7, firstCompileExtraMs: 0, firstCompileCpuPerWall: 1 },
  cpp: { compileMs: 1_400, testMs: 6, firstCompileExtraMs: 0, firstCompileCpuPerWall: 1 },
  kotlin: { compileMs: 320, testMs: 195, firstCompileExtraMs: 4_190 - 320, firstCompileCpuPerWall: 1.7 },
};

/**
 * What the real runner spent per Python sample: `npm run bench runner-cost -- --language python
 * --items 1000 --invocations 100` (sim/cloud/measure-runner-cost.ts: the simulation's own runner
 * requests, 326 samples in 100 batch invocations, served by functions/runner/serve.ts at the
 * rlimits level with seccomp, Landlock and the zygote, as a non-root runner), 2026-12-07, on the
 * shared 2-core machine at load 11.7–12.7 (a second sitting at load 10.8–11.5: 34, 6.5 a test,
 * a TLE test 3,589). CPU ms (utime + stime of the runner and all it
 * started): per sample beside its tests 34 (the one-shot syntax check 21.5, the after-item check
 * 8.9, the invocation's own work 3.5) — PROFILES' compileMs; a test that ends on its own 7.1
 * (sd 5.7, 1,613 tests) — testMs; a TLE test 3,487 (sd 146, 17 tests: SIGXCPU at its 4 s
 * RLIMIT_CPU as the zygote's rusage counts it; busyLoopTle bills the limit, 4,000). Wall time was
 * 3–4× the CPU time at that load (120 ms and 24 ms); at one vCPU of its own a runner's wall time
 * is its CPU time, so the CPU figures are the profile. `sd` is the spread of single samples' or
 * tests' CPU time.
 */
export const MEASURED_RUNNER = {
  python: { perSampleMs: 34, perSampleSdMs: 7.4, testMs: 7.1, testSdMs: 5.7, tleTestCpuMs: 3_487, samples: 326, tests: 1_613, tleTests: 17 },
} as const;

/** What an environment's first compilation adds in a runner of `memoryMb` (the Kotlin compile server's start; 0 for the others). */
export function runnerStartMs(language: SimLanguage, memoryMb: number): number {
  const { firstCompileExtraMs, firstCompileCpuPerWall } = PROFILES[language];
  return Math.round(cpuBoundMs(firstCompileExtraMs * firstCompileCpuPerWall, memoryMb, firstCompileCpuPerWall));
}

/**
 * The share of one core a single thread gets in a function of `memoryMb`: Lambda gives CPU in
 * proportion to memory, one vCPU at 1,769 MB (AWS Lambda Developer Guide, "Configure Lambda
 * function memory", docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html, read
 * 2026-12-07), so below it a thread gets memoryMb / 1,769 of a core; above it the function has
 * more vCPUs, but one thread still runs on one: single-threaded work does not speed up.
 */
export function cpuShare(memoryMb: number): number {
  if (!(memoryMb > 0)) throw new Error(`memoryMb must be positive, got ${memoryMb}`);
  return Math.min(1, memoryMb / ONE_VCPU_MB);
}

/**
 * Wall time of CPU-bound work of `cpuMs` (single-threaded work: its wall time on one full core,
 * PROFILES' figures) in a function of `memoryMb`; `threads`: how many cores the work keeps busy
 * when it can (1: single-threaded), so it runs on min(threads, vCPUs) of them.
 * @example
 * cpuBoundMs(1_000, 884.5) // 2_000: half a vCPU
 * cpuBoundMs(1_000, 4_096) // 1_000: one thread does not use the second vCPU
 * cpuBoundMs(1_700, 4_096, 1.7) // 1_000: a start that keeps 1.7 cores busy
 */
export function cpuBoundMs(cpuMs: number, memoryMb: number, threads = 1): number {
  if (!(threads >= 1)) throw new Error(`threads must be at least 1, got ${threads}`);
  cpuShare(memoryMb); // refuses a memory that is not positive
  return cpuMs / Math.min(threads, memoryMb / ONE_VCPU_MB);
}

/**
 * The factor the sandbox multiplies a program's CPU limit by (layers/sandbox/program-host.ts
 * `runOnce`: cpuMs × the run command's `cpuFactor`): 2 for a JVM program (layers/sandbox/languages/jvm.ts
 * `jvmRunCommand`: its JIT and GC threads burn CPU beside the program's), 1 elsewhere.
 */
export const CPU_FACTOR: Record<SimLanguage, number> = { python: 1, cpp: 1, kotlin: 2 };

/**
 * The sandbox's wall-clock net for a run (layers/sandbox/program-host.ts `runOnce`:
 * max(wallMs, cpuMs × cpuFactor + 1000) × loadScale(); a runner environment runs one program at
 * a time, so its load factor is 1).
 */
export function sandboxWallMs(limits: { cpuMs: number; wallMs: number }, cpuFactor = 1): number {
  return Math.max(limits.wallMs, Math.round(limits.cpuMs * cpuFactor) + 1000);
}

/**
 * The CPU a busy loop is killed at: RLIMIT_CPU's soft limit, whole seconds rounded up from
 * cpuMs × cpuFactor (layers/sandbox/pe-supervisor.c `start_program` and python-zygote.py:
 * (cpu_ms + 999) / 1000 s; SIGXCPU ends the program there).
 */
export function rlimitCpuMs(limits: { cpuMs: number }, cpuFactor = 1): number {
  return Math.ceil(Math.round(limits.cpuMs * cpuFactor) / 1000) * 1000;
}

/**
 * A busy loop's end: the sandbox kills it when it has used its CPU limit (RLIMIT_CPU,
 * {@link rlimitCpuMs}: a JVM program's is twice its cpuMs) or when the wall-clock net fires,
 * whichever comes first. With `share` of a core its CPU limit takes rlimitCpuMs / share of wall time. Returns its wall time and the CPU it was charged.
 */
export function busyLoopTle(limits: { cpuMs: number; wallMs: number }, memoryMb: number, cpuFactor = 1): { wallMs: number; cpuMs: number } {
  const share = cpuShare(memoryMb);
  const wallMs = Math.min(rlimitCpuMs(limits, cpuFactor) / share, sandboxWallMs(limits, cpuFactor));
  return { wallMs: Math.round(wallMs), cpuMs: Math.round(wallMs * share) };
}

/**
 * The least CPU share at which no program's verdict differs from one core's: a program that
 * used c ≤ cpuMs of CPU needs c / share of wall time, inside the wall net when share ≥
 * cpuMs / sandboxWallMs. For the CPU-clock limits (wallMs = 2 × cpuMs + 2000, io-tests-judge.ts
 * `wallLimitFor`) that is under 0.5; for a wall-clock task (wallMs = cpuMs, the net cpuMs + 1000)
 * it is nearly 1, so a runner is never sized below one vCPU (function-memory.ts). A JVM program's
 * CPU limit is cpuMs × 2 (`cpuFactor`): Kotlin's unit tests (10 s, net 22 s) need 0.91.
 */
export function verdictSafeShare(limits: { cpuMs: number; wallMs: number }, cpuFactor = 1): number {
  return Math.min(1, (limits.cpuMs * cpuFactor) / sandboxWallMs(limits, cpuFactor));
}

/** Per 20 samples: 11 OK, 4 WA, 4 RE, 1 TLE (RoCode); Kotlin's unit tests have no WA: 4 CE instead. */
const MIX: AnswerKind[] = ['OK', 'WA', 'OK', 'RE', 'OK', 'OK', 'WA', 'OK', 'RE', 'OK', 'TLE', 'OK', 'WA', 'OK', 'RE', 'OK', 'WA', 'OK', 'RE', 'OK'];

export type SimKind = AnswerKind | KotlinKind;

export function kindOf(taskIndex: number, sample: number, language: SimLanguage = 'python'): SimKind {
  const kind = MIX[(taskIndex * 7 + sample) % MIX.length] as AnswerKind;
  return language === 'kotlin' && kind === 'WA' ? 'CE' : kind;
}

/** The verdict counts a run of `tasks` × `n` samples must end with. */
export function expectedVerdicts(tasks: number, n: number, language: SimLanguage = 'python'): Partial<Record<SimKind, number>> {
  const out: Partial<Record<SimKind, number>> = {};
  for (let t = 0; t < tasks; t++)
    for (let s = 0; s < n; s++) {
      const kind = kindOf(t, s, language);
      out[kind] = (out[kind] ?? 0) + 1;
    }
  return out;
}

/** What the simulated model answers for one (task, sample): a fenced RoCode program, or a Kotlin completion as a completion model writes it. */
function answerOf(language: SimLanguage, kind: SimKind): string {
  if (language === 'kotlin') return KOTLIN_COMPLETIONS[kind as KotlinKind];
  return `\`\`\`${language}\n${benchProgram(language, kind as AnswerKind)}\`\`\`\n`;
}

/**
 * A model call takes MODEL_CALL_MS × (0.5 … 1.5), uniformly (`random`: the simulation's seeded
 * generator), under the model's quotas (./limits/model-quota.ts): a throttled attempt is retried
 * by the real CallPolicy with the generate stage's options (GENERATE_PROVIDER_OPTIONS: 2 retries,
 * full-jitter back-off), its waits in virtual time beside the batch's other calls.
 */
export function simProvider(
  time: VirtualTime,
  model: string,
  language: SimLanguage,
  random: () => number,
  quotas?: ModelQuotas,
  /** Told each call's virtual start and end (its attempts and back-offs): the calls in flight the model sees. */
  onCall?: (startMs: number, endMs: number) => void,
): Provider {
  return {
    id: `bedrock:${model}`,
    kind: 'bedrock',
    model,
    concurrency: 5,
    async generate(req: GenerateRequest): Promise<Generation> {
      const index = Number(/(\d+)$/.exec(req.taskId)?.[1] ?? 0);
      // This call's own time from the invocation's now: its attempts and back-offs, one after another.
      let spent = 0;
      const start = time.now();
      const options = resolveOptions({ ...GENERATE_PROVIDER_OPTIONS, random, now: () => start + spent, sleep: (ms) => ((spent += ms), Promise.resolve()) });
      const policy = new CallPolicy(options, (err) => classifySdkError(err, options.now()));
      try {
        const out = await policy.call(() => {
          const settle = quotas?.admit(start + spent, USAGE.promptTokens, req.params.maxTokens);
          const latencyMs = Math.round(MODEL_CALL_MS * (0.5 + random()));
          spent += latencyMs;
          settle?.(USAGE.completionTokens);
          return Promise.resolve(latencyMs);
        });
        return { text: answerOf(language, kindOf(index, req.sample, language)), usage: { ...USAGE }, latencyMs: out.value, attempts: out.attempts };
      } finally {
        onCall?.(start, start + spent);
        time.spendParallel(spent);
      }
    },
  };
}

const KINDS = new Map<string, { language: BenchLanguage; kind: AnswerKind }>(
  (['python', 'cpp'] as const).flatMap((language) =>
    (['OK', 'WA', 'RE', 'TLE'] as const).map((kind) => [benchProgram(language, kind).trim(), { language, kind }] as const),
  ),
);

/**
 * The runner function's answer to a request of one program or of several (a batch: samples of
 * one task, functions/runner/serve.ts serveBatch) and how long it ran. A batch's programs run
 * one after another, each compiled and run as alone (its own compile and tests); what they
 * share — the environment's cold start, the invocation's own overhead, the request and the
 * record — is SimLambda's, once per invocation.
 */
export function runRequest(payload: string, random: () => number, memoryMb: number = ONE_VCPU_MB): { payload: string; durationMs: number } {
  for (const observe of requestObservers) observe(payload);
  const request: unknown = JSON.parse(payload);
  if (!isBatchRequest(request)) return serveProgram(payload, random, memoryMb);
  const programs = RunnerBatchRequestSchema.parse(request).programs.map((program) => serveProgram(JSON.stringify(program), random, memoryMb));
  return {
    payload: JSON.stringify({ version: 1, programs: programs.map((p) => JSON.parse(p.payload) as unknown) }),
    durationMs: programs.reduce((sum, p) => sum + p.durationMs, 0),
  };
}

/**
 * The runner function's answer to one request and how long it ran in a runner of `memoryMb`
 * (default one vCPU): compiles and runs are CPU-bound and single-threaded (cpuBoundMs), a TLE
 * ends as busyLoopTle says. `random` spreads the compile and test times by ±20 %.
 */
export function runProgram(payload: string, random: () => number, memoryMb: number = ONE_VCPU_MB): { payload: string; durationMs: number } {
  for (const observe of requestObservers) observe(payload);
  return serveProgram(payload, random, memoryMb);
}

const requestObservers = new Set<(payload: string) => void>();

/**
 * Calls `observe` with every request the simulated runner is sent from now on (a single or a
 * batch request, as the judge sent it), until the returned function is called: what
 * ./measure-runner-cost.ts replays through the real runner.
 */
export function observeRunnerRequests(observe: (payload: string) => void): () => void {
  requestObservers.add(observe);
  return () => requestObservers.delete(observe);
}

function serveProgram(payload: string, random: () => number, memoryMb: number): { payload: string; durationMs: number } {
  const request = RunnerRequestSchema.parse(JSON.parse(payload));
  if (request.program.kind === 'unit-test') return runUnitTest(request, kotlinKindOf(request.program.source.completion), random, memoryMb);
  const code = request.program.kind === 'source' ? request.program.code.trim() : '';
  const what = KINDS.get(code) ?? { language: 'python' as const, kind: 'RE' as const };
  const profile = PROFILES[what.language];
  const spread = 0.8 + 0.4 * random();
  let durationMs = cpuBoundMs(profile.compileMs * spread, memoryMb);
  const testMs = Math.round(cpuBoundMs(profile.testMs, memoryMb));
  const runs: WireRun[] = request.runs.map((run) => {
    const numbers = run.stdin.split(/\s+/).filter(Boolean).map(Number);
    const n = numbers[0] ?? 0;
    const sum = numbers.slice(1, 1 + n).reduce((a, b) => a + b, 0);
    const base = { signal: null, stderr: '', files: {}, cpuMs: profile.testMs, peakMemoryKb: 9_000 };
    if (what.kind === 'TLE' && n >= 50) {
      const tle = busyLoopTle(run.limits, memoryMb);
      durationMs += tle.wallMs;
      return { ...base, termination: 'time', exitCode: null, stdout: '', runMs: tle.wallMs, cpuMs: tle.cpuMs };
    }
    durationMs += cpuBoundMs(profile.testMs * spread, memoryMb);
    if (what.kind === 'RE') return { ...base, termination: 'exited', exitCode: 1, stdout: '', stderr: 'IndexError', runMs: testMs };
    return { ...base, termination: 'exited', exitCode: 0, stdout: `${what.kind === 'WA' ? sum + 1 : sum}\n`, runMs: testMs };
  });
  const answer: RunnerResponse = {
    ok: true,
    compileMs: profile.compileMs,
    runs,
    isolation: 'rlimits+seccomp+landlock',
    integrity: { clean: true, survivors: [], changes: [] },
  };
  return { payload: JSON.stringify(answer), durationMs };
}

const INTEGRITY = { clean: true, survivors: [], changes: [] };

/**
 * A Kotlin unit-test program: compiled by the compile server, then run once with the token as
 * its argument (scoring/unit-tests.ts): OK prints the token, RE throws, CE does not compile, TLE
 * spins until its CPU limit (busyLoopTle, the same rule as the Python and C++ runs', with the
 * JVM's doubled CPU limit).
 */
function runUnitTest(request: RunnerRequest, kind: KotlinKind, random: () => number, memoryMb: number): { payload: string; durationMs: number } {
  const profile = PROFILES.kotlin;
  const spread = 0.8 + 0.4 * random();
  const compileMs = Math.round(cpuBoundMs(profile.compileMs * spread, memoryMb));
  if (kind === 'CE') {
    const answer: RunnerResponse = {
      ok: false,
      diagnostics: "main.kt:5:15: error: unresolved reference 'sumaTotala'.",
      compileMs,
      isolation: 'rlimits+seccomp+landlock',
      integrity: INTEGRITY,
    };
    return { payload: JSON.stringify(answer), durationMs: compileMs };
  }
  let durationMs = compileMs;
  const runs: WireRun[] = request.runs.map((run) => {
    const base = { signal: null, stderr: '', files: {}, peakMemoryKb: 48_000 };
    if (kind === 'TLE') {
      const tle = busyLoopTle(run.limits, memoryMb, CPU_FACTOR.kotlin);
      durationMs += tle.wallMs;
      return { ...base, termination: 'time', exitCode: null, stdout: '', runMs: tle.wallMs, cpuMs: tle.cpuMs };
    }
    const runMs = Math.round(cpuBoundMs(profile.testMs * spread, memoryMb));
    durationMs += runMs;
    if (kind === 'RE')
      return { ...base, termination: 'exited', exitCode: 1, stdout: '', stderr: 'Exception in thread "main" java.lang.Exception: greșit', runMs, cpuMs: runMs };
    return { ...base, termination: 'exited', exitCode: 0, stdout: `${run.args?.[0] ?? ''}\n`, runMs, cpuMs: runMs };
  });
  const answer: RunnerResponse = { ok: true, compileMs, runs, isolation: 'rlimits+seccomp+landlock', integrity: INTEGRITY };
  return { payload: JSON.stringify(answer), durationMs };
}
