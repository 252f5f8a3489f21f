/**
 * The deployed stack as the simulation sizes it: the same numbers infra/ uses (timeouts,
 * memory (layers/app/cloud/function-memory.ts), batch sizes, maxConcurrency, reserved concurrency, visibility = 6 × timeout,
 * maxReceiveCount 5), read from the modules infra reads them from. Cold starts are
 * assumptions (container-image functions; Lambda does not document a figure).
 */
import { concurrencyBudget, RUNNER_RESERVED_CONCURRENCY } from '#app/cloud/concurrency-budget.ts';
import { generateMapping, unbatchedGenerateMapping } from '#app/cloud/generate-mapping.ts';
import { EXECUTOR_IMAGES, JUDGE_MEMORY_MB } from '#core/languages/index.ts';
import { FUNCTION_MEMORY } from '#app/cloud/function-memory.ts';
import { ACCOUNT_CONCURRENCY } from './limits/concurrency.ts';
import type { FunctionSpec } from './sim-lambda.ts';
import { cpuBoundMs, runnerStartMs, type SimLanguage } from './sim-model.ts';

export const MAX_RECEIVE_COUNT = 5;
/** The generate queue's (infra/queues.ts): throttled items come back, each return a receive. */
export { GENERATE_MAX_RECEIVE_COUNT } from '#app/cloud/retry-budget.ts';
export const visibilityMs = (fn: FunctionSpec): number => 6 * fn.timeoutMs;

export interface DeploymentOptions {
  generateMaxConcurrency: number;
  /** Reserved concurrency for runners and maxConcurrency on judge mappings (the fix). */
  runnerReservation: boolean;
  fargateMaxTasks: number;
  /** generate's calls in flight in as few, large batches as hold them (generate-mapping.ts); false: batch 5 × generateMaxConcurrency, as before. */
  generateBatch?: boolean;
}

/**
 * The mappings' caps as infra/config.ts fits them into the simulated account: with the fix,
 * each judge gets what its runner holds and what generate, plan and aggregate leave; without
 * it, the judges are uncapped (plan, aggregate and generate keep theirs).
 */
export function mappingCaps(options: DeploymentOptions) {
  const budget = concurrencyBudget({
    accountConcurrency: ACCOUNT_CONCURRENCY,
    runnerReservedConcurrency: options.runnerReservation ? RUNNER_RESERVED_CONCURRENCY : 0,
    generateMaxConcurrency: options.generateMaxConcurrency,
    fargateMaxTasks: options.fargateMaxTasks,
    images: EXECUTOR_IMAGES.length,
  });
  return { generate: generateMappingOf(options).maxConcurrency, plan: budget.plan, aggregate: budget.aggregate, judge: budget.judge };
}

/** generate's event source mapping as infra/pipeline.ts synthesizes it for these settings. */
export function generateMappingOf(options: DeploymentOptions) {
  return options.generateBatch === false ? unbatchedGenerateMapping(options.generateMaxConcurrency) : generateMapping(options.generateMaxConcurrency);
}

export function functions(language: SimLanguage, options: DeploymentOptions) {
  const image = EXECUTOR_IMAGES.find((i) => i.languages.includes(language));
  const runnerMb = image?.memoryMb ?? 2048;
  const fn = (name: string, memoryMb: number, timeoutS: number, coldStartMs: number, extra: Partial<FunctionSpec> = {}): FunctionSpec => ({
    name,
    memoryMb,
    timeoutMs: timeoutS * 1000,
    coldStartMs,
    // The function's own work around its handler (an assumption: 30 ms of one core), slower below one vCPU.
    overheadMs: Math.round(cpuBoundMs(30, memoryMb)),
    ...extra,
  });
  // The Node stages' memory is infra's (function-memory.ts). Their own CPU is not simulated (their
  // 30 ms overhead and cold starts are assumptions at any size): what a smaller stage loses in CPU
  // (one vCPU at 1,769 MB, in proportion below) is function-memory.ts's reasoning, not a figure here.
  const node = (name: 'plan' | 'generate' | 'aggregate', timeoutS: number, coldStartMs: number): FunctionSpec =>
    fn(name, FUNCTION_MEMORY[name].memoryMb, timeoutS, coldStartMs);
  return {
    plan: node('plan', 300, 900),
    generate: node('generate', 300, 900),
    judge: fn(`execute-${image?.id ?? language}`, image?.judgeMemoryMb ?? JUDGE_MEMORY_MB, 300, 2_500),
    // A new runner environment: the image's cold start, plus Kotlin's compile server starting on its first compilation.
    runner: fn(
      `runner-${image?.id ?? language}`,
      runnerMb,
      900,
      2_500 + runnerStartMs(language, runnerMb),
      options.runnerReservation && RUNNER_RESERVED_CONCURRENCY > 0 ? { reserved: RUNNER_RESERVED_CONCURRENCY } : {},
    ),
    aggregate: node('aggregate', 600, 1_200),
    generateBatch: generateMappingOf(options),
    caps: mappingCaps(options),
  };
}
