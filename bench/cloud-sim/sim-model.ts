/**
 * The simulated model and runner of a RoCode-style run (the "suma" tasks of
 * bench/support/rocode-generator.ts): the provider answers each (task, sample) with one of the
 * generator's programs in a fixed mix (OK, WA, RE, TLE), and the runner function "runs" a
 * program by what it is — the sum of the numbers on stdin, or off by one, or a crash, or a
 * timeout on the large test — so the real judge (scoreIoTests) gives known verdicts.
 *
 * Durations are assumptions, named here: a model call of MODEL_CALL_MS; a runner's compile
 * and per-test times by language (PROFILES, close to what bench/rocode-scale measured on one
 * core); the token counts of a RoCode prompt and answer.
 */
import type { Generation, GenerateRequest, Provider } from '#core/models/provider.ts';
import { RunnerRequestSchema, type RunnerResponse, type WireRun } from '#app/cloud/runner-protocol.ts';
import { benchProgram, type AnswerKind, type BenchLanguage } from '../support/rocode-generator.ts';
import type { VirtualTime } from './virtual-time.ts';

export const MODEL_CALL_MS = 3_000;
export const USAGE = { promptTokens: 650, completionTokens: 220 } as const;

/** Compile and per-test run times in the runner (ms), by language. */
export const PROFILES: Record<BenchLanguage, { compileMs: number; testMs: number }> = {
  python: { compileMs: 60, testMs: 45 },
  cpp: { compileMs: 1_400, testMs: 6 },
};

/** Per 20 samples: 11 OK, 4 WA, 4 RE, 1 TLE. */
const MIX: AnswerKind[] = ['OK', 'WA', 'OK', 'RE', 'OK', 'OK', 'WA', 'OK', 'RE', 'OK', 'TLE', 'OK', 'WA', 'OK', 'RE', 'OK', 'WA', 'OK', 'RE', 'OK'];

export function kindOf(taskIndex: number, sample: number): AnswerKind {
  return MIX[(taskIndex * 7 + sample) % MIX.length] as AnswerKind;
}

/** The verdict counts a run of `tasks` × `n` samples must end with. */
export function expectedVerdicts(tasks: number, n: number): Record<AnswerKind, number> {
  const out: Record<AnswerKind, number> = { OK: 0, WA: 0, RE: 0, TLE: 0 };
  for (let t = 0; t < tasks; t++) for (let s = 0; s < n; s++) out[kindOf(t, s)] += 1;
  return out;
}

/** A model call takes MODEL_CALL_MS × (0.5 … 1.5), uniformly (`random`: the simulation's seeded generator). */
export function simProvider(time: VirtualTime, model: string, language: BenchLanguage, random: () => number): Provider {
  return {
    id: `bedrock:${model}`,
    kind: 'bedrock',
    model,
    concurrency: 5,
    generate(req: GenerateRequest): Promise<Generation> {
      const index = Number(/(\d+)$/.exec(req.taskId)?.[1] ?? 0);
      const code = benchProgram(language, kindOf(index, req.sample));
      const latencyMs = Math.round(MODEL_CALL_MS * (0.5 + random()));
      time.spendParallel(latencyMs);
      return Promise.resolve({ text: `\`\`\`${language}\n${code}\`\`\`\n`, usage: { ...USAGE }, latencyMs, attempts: 1 });
    },
  };
}

const KINDS = new Map<string, { language: BenchLanguage; kind: AnswerKind }>(
  (['python', 'cpp'] as const).flatMap((language) =>
    (['OK', 'WA', 'RE', 'TLE'] as const).map((kind) => [benchProgram(language, kind).trim(), { language, kind }] as const),
  ),
);

/** The runner function's answer to one request and how long it ran. */
/** `random` spreads the compile and test times by ±20 %. */
export function runProgram(payload: string, random: () => number): { payload: string; durationMs: number } {
  const request = RunnerRequestSchema.parse(JSON.parse(payload));
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
