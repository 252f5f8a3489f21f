/**
 * The memory of the pipeline's Node stages (infra/pipeline.ts), each chosen from its measured peak
 * (`npm run bench function-memory`: sim/cloud/measure-memory.ts runs each real handler on a
 * representative run in a fresh Node and reads its peak resident set) plus headroom.
 *
 * Lambda takes 128 to 10,240 MB in 1 MB steps and gives CPU in proportion: at 1,769 MB a function
 * has one vCPU (AWS Lambda Developer Guide, "Configure Lambda function memory",
 * docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html, read 2026-12-06). So a stage that
 * waits (generate on its model calls) bills less when smaller, while a CPU-bound stage below one
 * vCPU bills the same GB-seconds at any size — the smaller only takes longer.
 */

import { JUDGE_MEMORY_MB } from '#core/languages/index.ts';

/** Lambda's memory range, MB (1 MB steps). */
export const LAMBDA_MEMORY_RANGE_MB = { min: 128, max: 10_240 } as const;

/** The memory at which a Lambda function has one vCPU. */
export const ONE_VCPU_MB = 1769;

/** The vCPUs a function of `memoryMb` has (proportional to memory; AWS: "at 1,769 MB, a function has the equivalent of one vCPU"). */
export const vcpus = (memoryMb: number): number => memoryMb / ONE_VCPU_MB;

/** The least headroom above a measured peak: half the peak, at least 64 MB (the Lambda runtime's own client, a larger answer). */
export const minimumHeadroomMb = (peakMb: number): number => Math.max(64, Math.ceil(peakMb / 2));

export interface FunctionMemory {
  memoryMb: number;
  /** `npm run bench function-memory` (2,000 RoCode items, 2026-12-06): cold start + the largest invocation's growth, MB. */
  peakMb: number;
  why: string;
}

export const FUNCTION_MEMORY = {
  generate: {
    memoryMb: 512,
    peakMb: 99,
    why:
      'waits on its model calls (3 s each, 12 a batch by default, up to 25: generate-mapping.ts; 100 MB peak measured at 12, 2026-12-07) nearly all its billed time, so its GB-seconds fall with its memory; its CPU (a batch of prompts, JSON, SigV4) is milliseconds. ' +
      'Not 256: the measured run is small (synthetic one-line tasks, the simulation’s provider), while a warm generate holds every task of each run it serves (tasks.jsonl, ' +
      'RunContextCache keeps one context per run) and loads the provider’s SDK lazily; a RoCode-sized snapshot (2,600 tasks of ~20 KB with their tests) and the Bedrock and ' +
      'SageMaker clients took the bundle to a 224 MB peak (review of 35g, 2026-12-06), at 256 MB’s edge with one run and over it with two',
  },
  plan: {
    memoryMb: 1024,
    peakMb: 100,
    why:
      'CPU-bound (loads the dataset, writes the task snapshot and chunks of 1,000 items): below one vCPU its GB-seconds are the same at any size, so a smaller plan saves nothing. ' +
      'Kept at 1 GB: its peak grows with the dataset (the measured run’s tasks are one-line synthetic ones); a 10,000-task dataset of ~10 KB a task (100,000 items at 10 samples) ' +
      'peaked at 539 MB and a RoCode-sized one (2,600 tasks of ~20 KB) at 320 MB (review of 35g, 2026-12-06), over 512 MB and at its edge',
  },
  aggregate: {
    memoryMb: 2048,
    peakMb: 318,
    why: 'its peak grows with the run (the final aggregate holds every record, DuckDB/Parquet beside them) and its work is CPU: kept at just over one vCPU; 0.7% of a run’s GB-seconds',
  },
} as const satisfies Record<'plan' | 'generate' | 'aggregate', FunctionMemory>;

/**
 * The batch stage's memory (infra/batch.ts, the function that creates, polls and reads back a
 * `--batch` run's jobs): not one of the measured stages above; the dry run bills its ticks at it.
 */
export const BATCH_STAGE_MEMORY_MB = 1024;

/**
 * The largest per-test memory limit a Python or C++ runner must hold beside itself: a program is
 * held to its limit (RLIMIT_AS in the sandbox), so it counts in full. 1,024 MB: the checkers'
 * (io-tests-judge.ts CHECKER_LIMITS) and four times RoCode's default 256 MB.
 */
export const RUNNER_PROGRAM_LIMIT_MB = 1024;

/** Kotlin's per-test limit (unit-tests-judge.ts UNIT_TEST_LIMITS: DEFAULT_TEST_MEMORY_MB, the program JVM's -Xmx). */
export const KOTLIN_PROGRAM_LIMIT_MB = 512;

/** A runner's measured peaks (`npm run bench function-memory`, sim/cloud/measure-executor-memory.ts), MB. */
export interface RunnerPeaks {
  /** The runner's Node process (sandbox, compile cache, protocol). */
  nodeMb: number;
  /** Kotlin's compile server JVM (0 elsewhere). */
  compileServerMb: number;
  /** A program filling its limit: its own peak (the JVM's heap plus its non-heap for Kotlin). */
  limitProgramMb: number;
  /** The per-test limit that must fit. */
  programLimitMb: number;
}

/**
 * The least memory a runner may have: its own processes' measured peak (Node, and Kotlin's
 * compile server) plus the headroom rule on them ({@link minimumHeadroomMb}), plus a program at
 * its limit (the larger of the limit and what a program filling it measured) — and never below
 * one vCPU ({@link ONE_VCPU_MB}): below it a wall-clock task's program that passes on one core
 * could meet the sandbox's wall net first (sim/cloud/sim-model.ts verdictSafeShare), while its
 * CPU-bound GB-seconds would not fall (they take 1,769 / memory times longer).
 */
export function runnerFloorMb(peaks: RunnerPeaks): number {
  const own = peaks.nodeMb + peaks.compileServerMb;
  return Math.max(ONE_VCPU_MB, own + minimumHeadroomMb(own) + Math.max(peaks.programLimitMb, peaks.limitProgramMb));
}

/**
 * Each measured runner's peaks and why its image's memory (layers/core/languages, the spec's
 * `executor.memoryMb`) is what it is. `npm run bench function-memory` on the 2-core machine,
 * 2026-12-07 (loaded; memory figures do not depend on the load), run from source (tsx): the
 * Node figure is an upper one (the deployed runner is a bundle).
 */
export const RUNNER_MEMORY = {
  python: {
    memoryMb: 1769,
    peaks: { nodeMb: 127, compileServerMb: 0, limitProgramMb: 1004, programLimitMb: RUNNER_PROGRAM_LIMIT_MB },
    why:
      'compiles (a syntax check) and runs single-threaded programs: CPU-bound, so below one vCPU its GB-seconds would not fall and above it nothing runs faster; ' +
      'one vCPU is 1,769 MB, over the floor (Node + a program at 1,024 MB); was 2,048',
  },
  cpp: {
    memoryMb: 1769,
    peaks: { nodeMb: 124, compileServerMb: 0, limitProgramMb: 993, programLimitMb: RUNNER_PROGRAM_LIMIT_MB },
    why: 'g++ and the programs are single-threaded and CPU-bound: one vCPU (1,769 MB), as Python; was 2,048',
  },
  kotlin: {
    memoryMb: 2048,
    peaks: { nodeMb: 133, compileServerMb: 691, limitProgramMb: 509, programLimitMb: KOTLIN_PROGRAM_LIMIT_MB },
    why:
      'the compile server JVM (-Xmx1024m -Xms1024m -Xmn512m: its young generation is touched in full after a few compilations) beside the program JVM (-Xmx512m): ' +
      'the floor is 1,748 MB, but the server’s old generation grows in a long-lived environment until it is recycled (70 % of its heap in use after a collection), ' +
      'so 2,048 MB rather than 1,769: both JVMs at their full heaps with their measured non-heap come to ~1,922 MB (test/infra/function-memory.test.ts). A warm compilation is single-threaded (no faster at 4 GB); the server’s start keeps 1.7 cores busy, ' +
      'so at 2,048 MB (1.16 vCPU) it takes 1.5 times as long as at 4,096; was 4,096',
  },
} as const satisfies Record<'python' | 'cpp' | 'kotlin', { memoryMb: number; peaks: RunnerPeaks; why: string }>;

/** The limit of a checker program the judge runs itself (io-tests-judge.ts CHECKER_LIMITS). */
export const JUDGE_CHECKER_LIMIT_MB = 1024;

/** The least memory a judge may have: its Node peak plus the headroom rule, plus a checker program at its limit. */
export function judgeFloorMb(judge: { peakMb: number; checkerLimitMb: number }): number {
  return judge.peakMb + minimumHeadroomMb(judge.peakMb) + judge.checkerLimitMb;
}

/**
 * The judges (execute-<image>; layers/core/languages/images.ts JUDGE_MEMORY_MB, or the runner's
 * memory when smaller). `peakMb`: `npm run bench function-memory`'s `execute` line (the judge's
 * bundled handler, then its largest invocation in the simulation, hand-off and continuation).
 */
export const JUDGE_MEMORY = {
  memoryMb: JUDGE_MEMORY_MB,
  // The judge's bundled handler measured 90 MB (86 cold + 4 an invocation, 2,000 items, 2026-12-07) with no
  // checker run; a checker loads the sandbox, whose Node side measured up to 133 MB in a runner (from source).
  peakMb: 133,
  checkerLimitMb: JUDGE_CHECKER_LIMIT_MB,
  why:
    'hands its runner off (Event invoke) and continues from the runner’s record: its billed time is storage and queue calls, waiting, so its GB-seconds fall with its memory. ' +
    'The floor is its Node peak + headroom + a checker at 1,024 MB: 1,224 MB; 1,280 MB is 0.72 vCPU, above the 0.33 at which a checker’s 10 s CPU limit meets its 30 s wall net',
} as const;
