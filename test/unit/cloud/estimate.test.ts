// The cloud cost estimate bills what the deployment really runs: on the Lambda lane a judge that
// hands its item to the language's runner Lambda asynchronously (runner-handoff.ts), so it bills its
// own work and not the runner's; a Fargate-lane item pays its task plus its runner.
import { describe, expect, it } from 'vitest';
import { AWS_PRICES, DEFAULT_DEPLOYMENT, estimateCloudRun } from '#app/cloud/estimate.ts';
import type { DryRunPlan } from '#app/shared/dry-run.ts';
import { EXECUTOR_IMAGES } from '#core/languages/index.ts';
import { BATCH_STAGE_MEMORY_MB, FUNCTION_MEMORY } from '#app/cloud/function-memory.ts';
import { generateMapping } from '#app/cloud/generate-mapping.ts';

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
  it('bills a Lambda-lane item for the runner’s time and the judge’s own work, not for the judge waiting on its runner', () => {
    const fast = estimateCloudRun(plan, 'python', { ms: 2_000, source: 'test' });
    const slow = estimateCloudRun(plan, 'python', { ms: 4_000, source: 'test' });
    expect(fast.executor.lane).toBe('lambda');
    // Two more seconds per item bill the runner's memory only: the judge is not waiting (it would add its own 2 GB too).
    expect(slow.executor.lambda_gb_seconds - fast.executor.lambda_gb_seconds).toBeCloseTo(100 * 2 * memoryGb('python'), 1);
    const none = estimateCloudRun(plan, null, undefined);
    const judgeAndRunner = fast.executor.lambda_gb_seconds - none.executor.lambda_gb_seconds;
    expect(judgeAndRunner).toBeGreaterThan(100 * 2 * memoryGb('python'));
    expect(judgeAndRunner).toBeLessThan(100 * 2 * (memoryGb('python') + judgeGb('python')));
    // Per item: 0.15 of a judge invocation (it takes up to 10 messages in a 5 s window: the simulation's
    // 1,543 judge invocations for 10,000 items), 0.39 of a runner invocation (2.59 samples of one task an
    // invocation at generate's batch of 12: python.ts) and of those records a continuation per 9.9 (the
    // judge takes them 10 at a time with a 5 s window): 0.15 + 0.39 + 0.039.
    expect(fast.requests.lambda - none.requests.lambda).toBe(58);
  });

  it('bills an item that is not executed (generate scores it) none of the judge’s, its continuation’s or the runner’s requests', () => {
    const executed = estimateCloudRun(plan, 'python', { ms: 2_000, source: 'test' }).requests;
    const none = estimateCloudRun(plan, null, undefined).requests;
    // Per item: the execute queue's send, receive and delete (each batched), the answers queue's
    // send by Lambda a record (0.39 of one), its receive and delete once per 9.9 records; the run's status read once per judge
    // invocation (status-once.ts); one GET of the item's record, before recording (stages.ts Delivery).
    // The execute queue's sends: 2 SendMessageBatch calls of at most 10 for generate's batch of 12 (2/12 an item, not 1/10);
    // with its receives and deletes 0.49 an item (the simulation's `sqs_by_queue.execute`: 1,669 + 1,708 + 1,543 for 10,000 items).
    expect(executed.sqs - none.sqs).toBe(96);
    // Status reads: the judge's 0.12 an item, and one per continuation (0.39 / 9.9).
    expect(executed.dynamodb_units - none.dynamodb_units).toBe(16);
    expect(executed.s3 - none.s3).toBe(100);
  });

  it("bills a Kotlin runner at the compile server's memory while the judge bills only its own work", () => {
    const fast = estimateCloudRun(plan, 'kotlin', { ms: 2_000, source: 'test' });
    const slow = estimateCloudRun(plan, 'kotlin', { ms: 4_000, source: 'test' });
    // The runner at the compile server's 2 GB and the judge at 1.25 GB (measured peaks, function-memory.ts).
    expect(memoryGb('kotlin')).toBe(2);
    expect(judgeGb('kotlin')).toBe(1.25);
    expect(slow.executor.lambda_gb_seconds - fast.executor.lambda_gb_seconds).toBeCloseTo(100 * 2 * memoryGb('kotlin'), 1);
  });

  it('bills a Fargate task at the size the lane deploys', () => {
    const withLane = { ...DEFAULT_DEPLOYMENT, architecture: 'x86_64', fargateLane: true } as const;
    const estimate = estimateCloudRun(plan, 'python', { ms: 300_000, source: 'test' }, withLane);
    // 100 items × 300 s on 2 vCPU and 4 GB, plus the runner's and generate's GB-seconds
    const hours = (100 * 300) / 3600;
    expect(estimate.executor.fargate_vcpu_hours).toBeCloseTo(hours * 2, 2);
    const expected =
      estimate.executor.lambda_gb_seconds * AWS_PRICES.lambdaGbSecond.x86_64 +
      hours * (2 * AWS_PRICES.fargateVcpuHour.x86_64 + 4 * AWS_PRICES.fargateGbHour.x86_64);
    expect(estimate.executor.cost_usd).toBeCloseTo(expected, 3);
  });

  it('bills a Fargate-lane item for the task and for its runner Lambda', () => {
    const estimate = estimateCloudRun(plan, 'kotlin', { ms: 300_000, source: 'test' }, { ...DEFAULT_DEPLOYMENT, fargateLane: true });
    const generate = estimateCloudRun(plan, null, undefined).executor.lambda_gb_seconds;
    expect(estimate.executor.lane).toBe('fargate');
    expect(estimate.executor.fargate_vcpu_hours).toBeGreaterThan(0);
    expect(estimate.executor.lambda_gb_seconds).toBeCloseTo(generate + 100 * 300 * memoryGb('kotlin'), 1);
    expect(estimate.requests.lambda - estimateCloudRun(plan, null, undefined).requests.lambda).toBe(100);
    // The task waits for its runner: no runner record on the answers queue and no continuation's status
    // read; its one GET of the item (before recording) is the continuation's.
    const lambdaLane = estimateCloudRun(plan, 'kotlin', { ms: 2_000, source: 'test' }, { ...DEFAULT_DEPLOYMENT, fargateLane: true }).requests;
    // Kotlin: 0.32 of a runner record per item (3.14 samples an invocation: kotlin.ts), each record the answers queue's
    // send, and a receive and a delete per 9.9 records: 0.32 + 0.064.
    expect(lambdaLane.sqs - estimate.requests.sqs).toBe(39);
    // The continuations' status reads: one per 9.9 of those records.
    expect(lambdaLane.dynamodb_units - estimate.requests.dynamodb_units).toBe(3);
    expect(lambdaLane.s3 - estimate.requests.s3).toBe(0);
  });
});

describe('estimateCloudRun of the deployed stack', () => {
  it('bills the architecture cdk.json deploys by default', async () => {
    const { readFileSync } = await import('node:fs');
    const cdk = JSON.parse(readFileSync(new URL('../../../cdk.json', import.meta.url), 'utf8')) as { context: { architecture: string } };
    expect(DEFAULT_DEPLOYMENT.architecture).toBe(cdk.context.architecture);
    const estimate = estimateCloudRun(plan, 'python', { ms: 2_000, source: 'test' });
    expect(estimate.executor.cost_usd).toBeCloseTo(estimate.executor.lambda_gb_seconds * AWS_PRICES.lambdaGbSecond[DEFAULT_DEPLOYMENT.architecture], 5);
  });

  it('prices the stack standing idle: no interface endpoint by default (the Fargate lane is opt-in), its alarm metrics always', async () => {
    const { interfaceEndpointServices } = await import('../../../infra/network.ts');
    const { readFileSync } = await import('node:fs');
    const cdk = JSON.parse(readFileSync(new URL('../../../cdk.json', import.meta.url), 'utf8')) as { context: { fargateLane: boolean } };
    expect(DEFAULT_DEPLOYMENT.fargateLane).toBe(cdk.context.fargateLane);
    const byDefault = estimateCloudRun(plan, 'python', { ms: 2_000, source: 'test' });
    const withLane = estimateCloudRun(plan, 'python', { ms: 2_000, source: 'test' }, { ...DEFAULT_DEPLOYMENT, fargateLane: true });
    expect(byDefault.fixed.interface_endpoints).toBe(interfaceEndpointServices(false).length);
    expect(byDefault.fixed.interface_endpoints).toBe(0);
    // 4 alarm metrics × $0.10 (test/infra/idle-cost.test.ts counts them in the template), the
    // watchdog's 2,920 ticks keeping the alarms of 8 work queues (and the dead-letter alarms of the 5
    // runners' answers queues) and the batch stage's 8,760: issue 35's ≤ $1.
    expect(byDefault.fixed.alarm_metrics).toBe(4);
    expect(byDefault.fixed).toMatchObject({ scheduled_ticks: 11_680, watched_queues: 13, aged_queues: 8, scheduled_usd_per_month: 0.55 });
    expect(byDefault.fixed.usd_per_month).toBeCloseTo(0.95, 2);
    expect(byDefault.fixed.usd_per_month).toBeLessThanOrEqual(1);
    expect(withLane.fixed.interface_endpoints).toBe(interfaceEndpointServices(true).length);
    expect(withLane.fixed).toMatchObject({ watched_queues: 18, aged_queues: 13 });
    expect(withLane.fixed.usd_per_month).toBeCloseTo(5 * 2 * 0.01 * 730 + withLane.fixed.alarm_metrics * 0.1 + withLane.fixed.scheduled_usd_per_month, 1);
  });
});

describe('estimateCloudRun of a --batch run', () => {
  const priced: DryRunPlan = { ...plan, model: 'openai:https://api.openai.com/v1#gpt-4o-mini', cost_usd: 0.2, batch_cost_usd: 0.1 };

  it('shows the batch and on-demand figures side by side, and totals the run at the batch price', () => {
    const estimate = estimateCloudRun(priced, 'python', { ms: 2_000, source: 'test' }, DEFAULT_DEPLOYMENT, true);
    expect(estimate.generation).toBe('batch');
    const { on_demand: onDemand, batch } = estimate.modes;
    expect(batch?.model_usd).toBe(0.1);
    expect(onDemand.model_usd).toBe(0.2);
    expect(estimate.total_usd).toBe(batch?.total_usd);
    expect(batch?.total_usd).toBeCloseTo(0.1 + (batch?.executor_usd ?? NaN) + (batch?.requests_usd ?? NaN), 6);
    // No generate invocation waits on a call: the batch run's Lambda time is the executors' and the batch stage's.
    expect(batch?.executor_usd).toBeLessThan(onDemand.executor_usd);
    // OpenAI's batch window is 24 hours; on demand, minutes at the deployed concurrency.
    expect(batch?.wall_time_seconds).toBe(24 * 3600);
    expect(estimate.wall_time_seconds).toBe(24 * 3600);
    expect(onDemand.wall_time_seconds).toBeLessThan(3600);
  });

  it('bills the batch stage’s reading back at the memory infra/batch.ts deploys, not generate’s', () => {
    const big = { ...priced, items: 10_000 };
    const asBatch = estimateCloudRun(big, null, undefined, DEFAULT_DEPLOYMENT, true).executor.lambda_gb_seconds;
    const onDemand = estimateCloudRun(big, null, undefined).executor.lambda_gb_seconds;
    // Both bill aggregate alike; on demand, generate waits on the slowest of each batch's calls; as a batch, 0.01 s an item of the batch stage.
    // The deployed mapping's batch (generate-mapping.ts: 12 at the default), the slowest of 12 uniform calls 0.5 + 12/13 of the mean.
    const batch = generateMapping(DEFAULT_DEPLOYMENT.generateConcurrency).batchSize;
    expect(batch).toBe(12);
    const generate = (10_000 / batch) * DEFAULT_DEPLOYMENT.callSeconds * (0.5 + batch / (batch + 1)) * (FUNCTION_MEMORY.generate.memoryMb / 1024);
    expect(asBatch - onDemand).toBeCloseTo(10_000 * 0.01 * (BATCH_STAGE_MEMORY_MB / 1024) - generate, 0);
  });

  it('keeps an on-demand run’s own figures and still shows what a batch would cost', () => {
    const estimate = estimateCloudRun(priced, 'python', { ms: 2_000, source: 'test' });
    expect(estimate.generation).toBe('on-demand');
    expect(estimate.total_usd).toBe(estimate.modes.on_demand.total_usd);
    expect(estimate.modes.batch?.total_usd).toBeLessThan(estimate.total_usd ?? 0);
  });

  it('bounds a Bedrock job by its 168-hour timeout, bills an unpriced batch at on demand, and has no batch for a provider without a batch API', () => {
    const bedrock = estimateCloudRun(
      { ...priced, model: 'bedrock:anthropic.claude-3-5-haiku-20241022-v1:0', batch_cost_usd: null },
      null,
      undefined,
      DEFAULT_DEPLOYMENT,
      true,
    );
    expect(bedrock.modes.batch?.wall_time_seconds).toBe(168 * 3600);
    expect(bedrock.modes.batch?.model_usd).toBe(0.2);
    expect(estimateCloudRun(plan, null, undefined).modes.batch).toBeNull();
  });
});

describe('estimateCloudRun request counts (audit 2026-12-07: a --batch dry run showed -127 SQS requests)', () => {
  const models = ['bedrock:anthropic.claude-3-5-haiku-20241022-v1:0', 'openai:https://api.openai.com/v1#gpt-4o-mini'];
  const timing = { ms: 500, source: 'test' };

  it('never counts a negative request, for small and large runs, each language, on demand and as a batch', () => {
    for (const model of models)
      for (const items of [1, 9, 52, 90, 10_000])
        for (const language of [null, 'python', 'c', 'cpp', 'kotlin'])
          for (const batch of [false, true]) {
            const { requests } = estimateCloudRun({ ...plan, model, items }, language, language === null ? undefined : timing, DEFAULT_DEPLOYMENT, batch);
            const where = `${model} ${items} items ${language ?? 'not executed'}${batch ? ' --batch' : ''}`;
            for (const kind of ['lambda', 'sqs', 'dynamodb_units', 's3', 'cost_usd'] as const)
              expect(requests[kind], `${where}: ${kind}`).toBeGreaterThanOrEqual(0);
          }
  });

  it('counts a batch run without generate’s queue and with the batch stage’s one send per executed item', () => {
    const big = { ...plan, model: models[1] as string, items: 10_000 };
    const sqs = (language: string | null, batch: boolean): number =>
      estimateCloudRun(big, language, language === null ? undefined : timing, DEFAULT_DEPLOYMENT, batch).requests.sqs;
    // generate's queue in the simulation of 10,000 items (`sqs_by_queue.generate`): plan's 1,000 SendMessageBatch,
    // generate's 1,677 receives and 1,677 deletes — none in a batch run (plan writes job documents).
    const generateQueue = 1_000 + 1_677 + 1_677;
    // Not executed (ABRICOT): nothing else changes.
    expect(sqs(null, false) - sqs(null, true)).toBeCloseTo(generateQueue, -2);
    // Executed: the batch stage sends each item's execute message on its own (10,000), where generate's
    // send gate sent its batch of 12 in 2 SendMessageBatch calls (1,667).
    expect(sqs('python', true) - (sqs('python', false) - generateQueue)).toBeCloseTo(10_000 - 1_667, -2);
  });

  it('bills a batch run the tick work of its open jobs, not the scheduled ticks themselves (those are in `fixed`)', () => {
    const small = { ...plan, model: models[1] as string, items: 52 };
    const asBatch = estimateCloudRun(small, null, undefined, DEFAULT_DEPLOYMENT, true);
    const onDemand = estimateCloudRun(small, null, undefined);
    // 24 h of 5-minute ticks (288): no Lambda request of the run's own; each tick lists the run's jobs twice,
    // reads its one job document and writes its status line.
    expect(asBatch.requests.lambda).toBeLessThan(onDemand.requests.lambda);
    expect(asBatch.requests.dynamodb_units - onDemand.requests.dynamodb_units).toBe(288);
    expect(asBatch.requests.s3 - onDemand.requests.s3).toBe(288 * 3 + 5 + 2);
  });
});
