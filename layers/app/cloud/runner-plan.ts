/**
 * How a sample's runs are split over runner invocations: each invocation's request must stay
 * within the synchronous payload limit (runner-protocol.ts) and its worst case — a compilation
 * plus every run's wall limit — within the runner function's timeout. Runs keep their order.
 * A run whose input cannot fit even alone with the program is refused: the runner has no
 * network, so there is no other way in (SE, naming the sizes; run such a benchmark locally).
 */
import { HarnessError } from '#core/errors.ts';
import type { RunRequest } from '#core/judging/index.ts';
import type { RunnerProgram } from '#core/judging/index.ts';
import { jsonBytes, runnerRequest } from './runner-protocol.ts';

/** The runner function's timeout (Lambda's maximum, 15 minutes; infra/runners.ts). */
export const RUNNER_TIMEOUT_MS = 15 * 60_000;
/** A compilation's wall-clock safety net in the sandbox (2 × the 60 s compile limit). */
export const COMPILE_WALL_MS = 120_000;
/** The worst case one invocation may plan for, with a minute to spare for start-up and the check. */
export const RUNNER_TIME_BUDGET_MS = RUNNER_TIMEOUT_MS - 60_000;

/** Indexes of the runs of each invocation, in order. */
export function planInvocations(program: RunnerProgram, runs: readonly RunRequest[], budget: { payloadBytes: number; timeMs: number }): number[][] {
  const base = jsonBytes(runnerRequest(program, [], 0)) + 32;
  const timeForRuns = budget.timeMs - COMPILE_WALL_MS;
  const plan: number[][] = [];
  let chunk: number[] = [];
  let bytes = base;
  let time = 0;
  for (const [i, run] of runs.entries()) {
    const size = jsonBytes(run) + 1;
    if (base + size > budget.payloadBytes) {
      throw new HarnessError(
        `test ${i + 1}'s input (${size} bytes as JSON) with the program (${base} bytes) exceeds the ${budget.payloadBytes} bytes a runner invocation may carry (Lambda's 6 MB synchronous payload); the runner has no network to fetch it: run this benchmark locally`,
      );
    }
    if (run.limits.wallMs > timeForRuns) {
      throw new HarnessError(
        `test ${i + 1}'s wall limit (${run.limits.wallMs} ms) exceeds what one runner invocation may take (${timeForRuns} ms after compiling)`,
      );
    }
    if (chunk.length > 0 && (bytes + size > budget.payloadBytes || time + run.limits.wallMs > timeForRuns)) {
      plan.push(chunk);
      chunk = [];
      bytes = base;
      time = 0;
    }
    chunk.push(i);
    bytes += size;
    time += run.limits.wallMs;
  }
  if (chunk.length > 0) plan.push(chunk);
  return plan;
}
