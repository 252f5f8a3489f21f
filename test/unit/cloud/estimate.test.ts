// The cloud cost estimate bills what the deployment really runs: a judge that waits for the
// language's runner Lambda (judge/runner split), so a Lambda-lane item pays two functions and
// a Fargate-lane item pays its task plus its runner.
import { describe, expect, it } from 'vitest';
import { AWS_PRICES, DEFAULT_DEPLOYMENT, estimateCloudRun } from '#app/cloud/estimate.ts';
import type { DryRunPlan } from '#app/shared/dry-run.ts';
import { EXECUTOR_IMAGES } from '#core/languages/index.ts';

const plan: DryRunPlan = {
  benchmark: 'rocode',
  model: 'reference',
  tasks: 10,
  n: 10,
  items: 100,
  likert_mode: null,
  prompt_tokens: 0,
  completion_tokens: 0,
  cost_usd: 0,
};
const image = (language: string) => EXECUTOR_IMAGES.find((i) => i.languages.includes(language))!;
const memoryGb = (language: string): number => image(language).memoryMb / 1024;
const judgeGb = (language: string): number => image(language).judgeMemoryMb / 1024;

describe('estimateCloudRun with judge and runner', () => {
  it('bills a Lambda-lane item for the judge and for the runner it waits for', () => {
    const estimate = estimateCloudRun(plan, 'python', { ms: 2_000, source: 'test' });
    const generate = estimateCloudRun(plan, null, undefined).executor.lambda_gb_seconds;
    expect(estimate.executor.lane).toBe('lambda');
    expect(estimate.executor.lambda_gb_seconds).toBeCloseTo(generate + 100 * 2 * (memoryGb('python') + judgeGb('python')), 1);
    expect(estimate.requests.lambda - estimateCloudRun(plan, null, undefined).requests.lambda).toBe(200);
  });

  it("bills a Kotlin judge at its own 2 GB while the runner it waits for has the compile server's 4 GB", () => {
    const estimate = estimateCloudRun(plan, 'kotlin', { ms: 2_000, source: 'test' });
    const generate = estimateCloudRun(plan, null, undefined).executor.lambda_gb_seconds;
    expect(memoryGb('kotlin')).toBe(4);
    expect(judgeGb('kotlin')).toBe(2);
    expect(estimate.executor.lambda_gb_seconds).toBeCloseTo(generate + 100 * 2 * (4 + 2), 1);
  });

  it('bills a Fargate task at the size the lane deploys', () => {
    const estimate = estimateCloudRun(plan, 'python', { ms: 300_000, source: 'test' });
    // 100 items × 300 s on 2 vCPU and 4 GB, plus the runner's and generate's GB-seconds
    const hours = (100 * 300) / 3600;
    expect(estimate.executor.fargate_vcpu_hours).toBeCloseTo(hours * 2, 2);
    const expected =
      estimate.executor.lambda_gb_seconds * AWS_PRICES.lambdaGbSecond.x86_64 +
      hours * (2 * AWS_PRICES.fargateVcpuHour.x86_64 + 4 * AWS_PRICES.fargateGbHour.x86_64);
    expect(estimate.executor.cost_usd).toBeCloseTo(expected, 3);
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

describe('estimateCloudRun of the deployed stack', () => {
  it('bills the architecture cdk.json deploys by default', async () => {
    const { readFileSync } = await import('node:fs');
    const cdk = JSON.parse(readFileSync(new URL('../../../cdk.json', import.meta.url), 'utf8')) as { context: { architecture: string } };
    expect(DEFAULT_DEPLOYMENT.architecture).toBe(cdk.context.architecture);
    const estimate = estimateCloudRun(plan, 'python', { ms: 2_000, source: 'test' });
    expect(estimate.executor.cost_usd).toBeCloseTo(estimate.executor.lambda_gb_seconds * AWS_PRICES.lambdaGbSecond.x86_64, 6);
  });

  it('states the interface endpoints the stack deploys as a fixed monthly cost, fewer without the Fargate lane', async () => {
    const { interfaceEndpointServices } = await import('../../../infra/network.ts');
    const withLane = estimateCloudRun(plan, 'python', { ms: 2_000, source: 'test' });
    const without = estimateCloudRun(plan, 'python', { ms: 2_000, source: 'test' }, { ...DEFAULT_DEPLOYMENT, fargateLane: false });
    expect(withLane.fixed.interface_endpoints).toBe(interfaceEndpointServices(true).length);
    expect(without.fixed.interface_endpoints).toBe(interfaceEndpointServices(false).length);
    expect(withLane.fixed.usd_per_month).toBeCloseTo(5 * 2 * 0.01 * 730, 2);
  });
});
