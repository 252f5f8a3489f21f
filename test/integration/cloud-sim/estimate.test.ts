// `polyeval remote run --dry-run` estimates a cloud run from per-item figures (layers/app/cloud/estimate.ts);
// the simulation runs the deployed stages' real code and counts what they bill (sim/cloud). The two
// must tell a user the same cost: this test fails when a stage's calls or memory change and the
// dry run's figures do not follow.
import { describe, expect, it } from 'vitest';
import { runSimulation } from '../../../sim/cloud/simulate.ts';
import { estimateCloudRun } from '#app/cloud/estimate.ts';
import type { DryRunPlan } from '#app/shared/dry-run.ts';
import { EXECUTOR_IMAGES } from '#core/languages/index.ts';

const ITEMS = 10_000;
/** How far the estimate may stray from the simulated run: its figures are means, the run’s are counted. At the size its per-item figures were measured at: item records are read more often per item as a run grows (S3 GETs 5.0 an item at 4,000 items, 8.1 at 10,000). */
const TOLERANCE = 0.15;

const within = (estimated: number, simulated: number): void => {
  expect(Math.abs(estimated - simulated) / simulated, `estimated ${estimated}, simulated ${simulated}`).toBeLessThanOrEqual(TOLERANCE);
};

describe.each(['python', 'kotlin'] as const)('the dry run’s estimate of a %s run against the simulated run', (language) => {
  it('bills the same Lambda GB-seconds, requests and execution cost within 15 %', async () => {
    const sim = await runSimulation({ items: ITEMS, language });
    expect(sim.completed).toBe(ITEMS);
    const gbS = sim.detail.gb_s as Record<string, number>;
    const requests = sim.detail.requests as Record<string, { count: number }> & { total_usd: number };
    // The executor time per item the dry run reads back from a finished cloud run: the summary's
    // `timing`, which the real aggregate measured from the records (compile + run, no cold start).
    const timing = sim.detail.timing as { execute_ms_mean: number } | undefined;
    expect(timing?.execute_ms_mean).toBeGreaterThan(0);
    const runnerMs = timing!.execute_ms_mean;
    const runnerGb = EXECUTOR_IMAGES.find((i) => i.languages.includes(language))!.memoryMb / 1024;
    const plan: DryRunPlan = {
      benchmark: 'rocode',
      model: 'reference',
      tasks: ITEMS / 10,
      n: 10,
      items: ITEMS,
      likert_mode: null,
      prompt_tokens: 0,
      completion_tokens: 0,
      cost_usd: 0,
    };
    const estimate = estimateCloudRun(plan, language, { ms: runnerMs, source: 'the simulated run’s summary' });

    within(estimate.executor.lambda_gb_seconds, sim.lambda_gb_s);
    // The runner apart (its cold starts and per-invocation overhead are not in the records' times),
    // and the rest apart: generate, the judge and its continuation, aggregate — the runner's share
    // would hide their drift in the total.
    const simRunner = gbS[`runner-${language}`]!;
    const estimatedRunner = ITEMS * (runnerMs / 1000) * runnerGb;
    within(estimatedRunner, simRunner);
    within(estimate.executor.lambda_gb_seconds - estimatedRunner, sim.lambda_gb_s - simRunner);
    within(estimate.requests.lambda, requests.lambda!.count);
    within(estimate.requests.sqs, requests.sqs!.count);
    within(estimate.requests.dynamodb_units, requests.dynamo_write!.count + requests.dynamo_read!.count);
    within(estimate.requests.s3, requests.s3_put!.count + requests.s3_get!.count);
    within(estimate.requests.cost_usd, requests.total_usd);
    within(estimate.executor.cost_usd + estimate.requests.cost_usd, sim.cost_usd - (sim.detail.model_usd as number));
  }, 300_000);
});

// A small run (one task of `-n 10`: 10 items; the README's `-b sample/rocode -n 10`: 90) makes requests its size does not
// scale: plan's and aggregate's tail (estimate.ts REQUESTS_PER_RUN). Each request kind's count strays
// more at this size (the aggregate's invocations follow the records' timing), the request bill not.
describe.each([10, 90])('the dry run’s estimate of a small %i-item Python run against the simulated run', (items) => {
  it('bills the requests within 15 % of the simulation (Lambda, S3 and their cost; SQS and DynamoDB within 40 %)', async () => {
    const sim = await runSimulation({ items, language: 'python' });
    expect(sim.completed).toBe(items);
    const requests = sim.detail.requests as Record<string, { count: number }> & { total_usd: number };
    const timing = sim.detail.timing as { execute_ms_mean: number };
    const plan: DryRunPlan = {
      benchmark: 'rocode',
      model: 'reference',
      tasks: Math.ceil(items / 10),
      n: 10,
      items,
      likert_mode: null,
      prompt_tokens: 0,
      completion_tokens: 0,
      cost_usd: 0,
    };
    const estimate = estimateCloudRun(plan, 'python', { ms: timing.execute_ms_mean, source: 'the simulated run’s summary' });
    const near = (estimated: number, simulated: number, tolerance: number): void => {
      expect(Math.abs(estimated - simulated) / simulated, `estimated ${estimated}, simulated ${simulated}`).toBeLessThanOrEqual(tolerance);
    };
    near(estimate.requests.lambda, requests.lambda!.count, TOLERANCE);
    near(estimate.requests.s3, requests.s3_put!.count + requests.s3_get!.count, TOLERANCE);
    near(estimate.requests.cost_usd, requests.total_usd, TOLERANCE);
    near(estimate.requests.sqs, requests.sqs!.count, 0.4);
    near(estimate.requests.dynamodb_units, requests.dynamo_write!.count + requests.dynamo_read!.count, 0.4);
  }, 120_000);
});
