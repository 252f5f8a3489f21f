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

/** Lambda's memory range, MB (1 MB steps). */
export const LAMBDA_MEMORY_RANGE_MB = { min: 128, max: 10_240 } as const;

/** The memory at which a Lambda function has one vCPU. */
export const ONE_VCPU_MB = 1769;

/** The vCPUs a function of `memoryMb` has (proportional to memory). */
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
      'waits on its model calls (3 s each, 5 a batch) nearly all its billed time, so its GB-seconds fall with its memory; its CPU (a batch of prompts, JSON, SigV4) is milliseconds. ' +
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
