// The cloud cost estimate bills what the deployment really runs: a judge that waits for the
// language's runner Lambda (judge/runner split), so a Lambda-lane item pays two functions and
// a Fargate-lane item pays its task plus its runner.
import { describe, expect, it } from 'vitest';
import { estimateCloudRun } from '#app/cloud/estimate.ts';
import type { DryRunPlan } from '#app/shared/dry-run.ts';
import { EXECUTOR_IMAGES } from '#core/languages/index.ts';

const plan: DryRunPlan = { benchmark: 'rocode', model: 'reference', tasks: 10, n: 10, items: 100, likert_mode: null, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 };
const memoryGb = (language: string): number => (EXECUTOR_IMAGES.find((image) => image.languages.includes(language))?.memoryMb ?? 0) / 1024;

describe('estimateCloudRun with judge and runner', () => {
  it('bills a Lambda-lane item for the judge and for the runner it waits for', () => {
    const estimate = estimateCloudRun(plan, 'python', { ms: 2_000, source: 'test' });
    const generate = estimateCloudRun(plan, null, undefined).executor.lambda_gb_seconds;
    expect(estimate.executor.lane).toBe('lambda');
    expect(estimate.executor.lambda_gb_seconds).toBeCloseTo(generate + 2 * 100 * 2 * memoryGb('python'), 1);
    expect(estimate.requests.lambda - estimateCloudRun(plan, null, undefined).requests.lambda).toBe(200);
  });

  it('bills a Fargate-lane item for the task and for its runner Lambda', () => {
    const estimate = estimateCloudRun(plan, 'kotlin', { ms: 300_000, source: 'test' });
    const generate = estimateCloudRun(plan, null, undefined).executor.lambda_gb_seconds;
    expect(estimate.executor.lane).toBe('fargate');
    expect(estimate.executor.fargate_vcpu_hours).toBeGreaterThan(0);
    expect(estimate.executor.lambda_gb_seconds).toBeCloseTo(generate + 100 * 300 * memoryGb('kotlin'), 1);
    expect(estimate.requests.lambda - estimateCloudRun(plan, null, undefined).requests.lambda).toBe(100);
  });
});
