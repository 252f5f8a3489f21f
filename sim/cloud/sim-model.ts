/**
 * The simulated model and runner of a RoCode-style run (the "suma" tasks of
 * sim/rocode-generator.ts): the provider answers each (task, sample) with one of the
 * generator's programs in a fixed mix (OK, WA, RE, TLE), and the runner function "runs" a
 * program by what it is — the sum of the numbers on stdin, or off by one, or a crash, or a
 * timeout on the large test — so the real judge (scoreIoTests) gives known verdicts.
 *
 * Durations are assumptions, named here: a model call of MODEL_CALL_MS; a runner's compile
 * and per-test times by language (PROFILES, close to what bench/rocode-scale measured on one
 * core; Kotlin's from the measured figures in docs/sandbox.md); the token counts of a RoCode
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
 */
export const PROFILES: Record<SimLanguage, { compileMs: number; testMs: number; firstCompileExtraMs: number }> = {
  python: { compileMs: 60, testMs: 45, firstCompileExtraMs: 0 },
  cpp: { compileMs: 1_400, testMs: 6, firstCompileExtraMs: 0 },
  kotlin: { compileMs: 320, testMs: 195, firstCompileExtraMs: 4_190 - 320 },
};

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
export function simProvider(time: VirtualTime, model: string, language: SimLanguage, random: () => number, quotas?: ModelQuotas): Provider {
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
export function runRequest(payload: string, random: () => number): { payload: string; durationMs: number } {
  const request: unknown = JSON.parse(payload);
  if (!isBatchRequest(request)) return runProgram(payload, random);
  const programs = RunnerBatchRequestSchema.parse(request).programs.map((program) => runProgram(JSON.stringify(program), random));
  return {
    payload: JSON.stringify({ version: 1, programs: programs.map((p) => JSON.parse(p.payload) as unknown) }),
    durationMs: programs.reduce((sum, p) => sum + p.durationMs, 0),
  };
}

/** The runner function's answer to one request and how long it ran. */
/** `random` spreads the compile and test times by ±20 %. */
export function runProgram(payload: string, random: () => number): { payload: string; durationMs: number } {
  const request = RunnerRequestSchema.parse(JSON.parse(payload));
  if (request.program.kind === 'unit-test') return runUnitTest(request, kotlinKindOf(request.program.source.completion), random);
  const code = request.program.kind === 'source' ? request.program.code.trim() : '';
  const what = KINDS.get(code) ?? { language: 'python' as const, kind: 'RE' as const };
  const profile = PROFILES[what.language];
  const spread = 0.8 + 0.4 * random();
  let durationMs = profile.compileMs * spread;
  const runs: WireRun[] = request.runs.map((run) => {
    const numbers = run.stdin.split(/\s+/).filter(Boolean).map(Number);
    const n = numbers[0] ?? 0;
    const sum = numbers.slice(1, 1 + n).reduce((a, b) => a + b, 0);
    const base = { signal: null, stderr: '', files: {}, cpuMs: profile.testMs, peakMemoryKb: 9_000 };
    if (what.kind === 'TLE' && n >= 50) {
      durationMs += run.limits.wallMs;
      return { ...base, termination: 'time', exitCode: null, stdout: '', runMs: run.limits.wallMs, cpuMs: run.limits.cpuMs };
    }
    durationMs += profile.testMs * spread;
    if (what.kind === 'RE') return { ...base, termination: 'exited', exitCode: 1, stdout: '', stderr: 'IndexError', runMs: profile.testMs };
    return { ...base, termination: 'exited', exitCode: 0, stdout: `${what.kind === 'WA' ? sum + 1 : sum}\n`, runMs: profile.testMs };
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
 * spins until its CPU limit (the sandbox charges CPU time; one busy thread's CPU is its wall).
 */
function runUnitTest(request: RunnerRequest, kind: KotlinKind, random: () => number): { payload: string; durationMs: number } {
  const profile = PROFILES.kotlin;
  const spread = 0.8 + 0.4 * random();
  const compileMs = Math.round(profile.compileMs * spread);
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
      durationMs += run.limits.cpuMs;
      return { ...base, termination: 'time', exitCode: null, stdout: '', runMs: run.limits.cpuMs, cpuMs: run.limits.cpuMs };
    }
    const runMs = Math.round(profile.testMs * spread);
    durationMs += runMs;
    if (kind === 'RE')
      return { ...base, termination: 'exited', exitCode: 1, stdout: '', stderr: 'Exception in thread "main" java.lang.Exception: greșit', runMs, cpuMs: runMs };
    return { ...base, termination: 'exited', exitCode: 0, stdout: `${run.args?.[0] ?? ''}\n`, runMs, cpuMs: runMs };
  });
  const answer: RunnerResponse = { ok: true, compileMs, runs, isolation: 'rlimits+seccomp+landlock', integrity: INTEGRITY };
  return { payload: JSON.stringify(answer), durationMs };
}
