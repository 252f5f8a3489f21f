// `npm run bench cloud-cost`: one simulated run per language priced beside the local CLI on one EC2 instance.
import { describe, expect, it } from 'vitest';
import { costLine, LOCAL_INSTANCE, LOCAL_ITEMS_PER_SECOND } from '../../../sim/cloud/cost-line.ts';
import { USAGE } from '../../../sim/cloud/sim-model.ts';
import { AWS_PRICES } from '#app/cloud/estimate.ts';

const CALL_USD = (USAGE.promptTokens * 0.25 + USAGE.completionTokens * 1.25) / 1e6;

describe('cloud cost against the local CLI', () => {
  it("prices 200 Kotlin items: the simulation's Lambda cost apart from the model's, the instance's time for the same mix (its TLEs spinning to the sandbox's CPU limit)", async () => {
    const line = await costLine('kotlin', 200);

    expect(line).toMatchObject({ language: 'kotlin', items: 200, local_instance: LOCAL_INSTANCE.type });
    expect(line.aws_model_usd).toBeCloseTo(200 * CALL_USD, 2);
    expect(line.aws_execution_usd).toBeGreaterThan(0);
    expect(line.aws_lambda_gb_s).toBeGreaterThan(0);
    // The instance judges the same mix as the cloud: 190 answers that end on their own at the fidelity
    // set's measured core time (2 cores / 3.03 a second), and 10 TLEs (5 %) that each compile (0.32 s)
    // and spin until the sandbox's JVM CPU limit (2 × 10 s) on a core, as the simulated runner bills them.
    const coreSeconds = 190 * (2 / LOCAL_ITEMS_PER_SECOND.kotlin) + 10 * (0.32 + 20);
    expect(line.local_execution_s).toBe(Math.round(coreSeconds / 2));
    // Judging bounds the instance: slower than 200 model calls of 3 s, 25 at a time.
    expect(line.local_wall_s).toBe(line.local_execution_s);
    expect(line.local_instance_usd).toBeCloseTo((line.local_wall_s / 3600) * LOCAL_INSTANCE.usdPerHour, 3);
    // The execution cost is the Lambda time at least (priced from the unrounded parts, not the run's cost less the
    // model's, both rounded to the cent), and the ratio is the two figures'.
    expect(line.aws_execution_usd).toBeGreaterThanOrEqual(Number((line.aws_lambda_gb_s * AWS_PRICES.lambdaGbSecond.arm64).toFixed(3)));
    expect(line.aws_to_instance).toBeCloseTo(line.aws_execution_usd / line.local_instance_usd, 0);
  }, 300_000);

  it('bills the Lambda time at the architecture cdk.json deploys (arm64), 20% under the same run on x86_64', async () => {
    // 4,000 items: enough GB-seconds for the difference to show in the line's cents (at 2,000, ~0.7 cent
    // since the Python runner bills its measured profile, sim-model.ts MEASURED_RUNNER, which rounds away).
    const arm = await costLine('python', 4000);
    const x86 = await costLine('python', 4000, [], 'x86_64');
    expect(arm.aws_architecture).toBe('arm64');
    expect(x86.aws_architecture).toBe('x86_64');
    // The same seeded run: the same GB-seconds, billed at each architecture's price.
    expect(arm.aws_lambda_gb_s).toBe(x86.aws_lambda_gb_s);
    const saved = x86.aws_execution_usd - arm.aws_execution_usd;
    expect(saved).toBeCloseTo(arm.aws_lambda_gb_s * (AWS_PRICES.lambdaGbSecond.x86_64 - AWS_PRICES.lambdaGbSecond.arm64), 1);
    expect(saved).toBeGreaterThan(0);
  }, 300_000);
});

describe('the requests a simulated run bills', () => {
  it('counts per item the S3, SQS, DynamoDB and Lambda requests it made, and prices them in the run’s cost', async () => {
    const { runSimulation } = await import('../../../sim/cloud/simulate.ts');
    const sim = await runSimulation({ items: 200, language: 'python' });
    const requests = sim.detail.requests as Record<string, { count: number; per_item: number; usd: number }> & { total_usd: number };
    // Every item's document is one S3 PUT (runs/<run>/items/…), read back when its part is compacted.
    expect(requests.s3_put!.per_item).toBeGreaterThanOrEqual(1);
    expect(requests.s3_get!.per_item).toBeGreaterThanOrEqual(1);
    // SQS: every queue's sends, receives, deletes and visibility changes, and Lambda's sends of the runners' records — no more, no fewer.
    const byQueue = sim.detail.sqs_by_queue as Record<string, { send: number; receive: number; delete: number; changeVisibility: number }>;
    const queueCalls = Object.values(byQueue).reduce((sum, q) => sum + q.send + q.receive + q.delete + q.changeVisibility, 0);
    expect(requests.sqs!.count).toBe(queueCalls + (sim.detail.handoff as { records: number }).records);
    expect(requests.sqs!.per_item).toBeGreaterThan(0.5);
    // Lambda: every invocation of every function, which batch their items: generate 12 a call, the
    // judge 10 a batch, a runner record and its continuation several samples of one task — under
    // one per item, and more than generate's and the judge's shares alone.
    const invocations = Object.values(sim.detail.invocations as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(requests.lambda!.count).toBe(invocations);
    expect(requests.lambda!.per_item).toBeGreaterThan(1 / 5 + 1 / 10);
    expect(requests.dynamo_write!.count).toBeGreaterThan(0);
    const lines = ['lambda', 'sqs', 'dynamo_write', 'dynamo_read', 's3_put', 's3_get'].map((k) => requests[k]!.usd);
    expect(lines.reduce((a, b) => a + b, 0)).toBeCloseTo(requests.total_usd, 3);
    expect(requests.s3_put!.usd).toBeCloseTo(requests.s3_put!.count * AWS_PRICES.s3Put, 4);
    // The run's cost is its GB-seconds, its model calls and these requests.
    const gbS = Object.values(sim.detail.gb_s as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(sim.cost_usd).toBeCloseTo(gbS * AWS_PRICES.lambdaGbSecond.arm64 + (sim.detail.model_usd as number) + requests.total_usd, 2);
  }, 300_000);

  it('bills per item what the deployed stages request: the completion read per part, each SQS call once', async () => {
    const { runSimulation } = await import('../../../sim/cloud/simulate.ts');
    const sim = await runSimulation({ items: 200, language: 'python' });
    const requests = sim.detail.requests as Record<string, { count: number; per_item: number }>;
    expect(sim.completed).toBe(200);
    // Per item: the cancelled check in generate and in the judge's two passes (3 reads), the part
    // counter's reads when a sub-counter fills (~0.25); the run's 18-row completion read once per
    // part (completion.ts), not after every record (it was 18 of 21.5 read units per item); and
    // generate's first look at each delivered item's row, half a unit (stages.ts generateWork).
    expect(requests.dynamo_read!.per_item).toBeLessThan(8.6);
    // Per item: 3 messages (generate's, the judge's, the runner's record), each sent (generate's 10 at
    // a time), received and deleted once; a few duplicates and small receives. The records' receives
    // and deletes are the answers queue's own counts: added again, this was ~10.4 here.
    expect(requests.sqs!.per_item).toBeLessThan(9);
  }, 300_000);

  it('bills one DeleteMessageBatch per processed batch, each run status once per invocation, the judge reading each item once (issue 35, 35o)', async () => {
    const { runSimulation } = await import('../../../sim/cloud/simulate.ts');
    // 1,000 items: enough batches that the first ones' cold and Inactive judges do not dominate.
    const sim = await runSimulation({ items: 1000, language: 'python' });
    const requests = sim.detail.requests as Record<string, { count: number; per_item: number }>;
    const byQueue = sim.detail.sqs_by_queue as Record<string, { send: number; receive: number; delete: number }>;
    const gets = sim.detail.s3_get_by_prefix as Record<string, number>;
    expect(sim.completed).toBe(1000);
    // The simulation assumes (sim-lambda.ts: AWS does not say; LocalStack's emulation does so) an event source
    // mapping deletes what a batch processed in one DeleteMessageBatch (SQS bills it as one request): never more deletes than receives on any queue. Billed per message, generate's
    // queue alone had 5 deletes per receive (its batch of 5) and SQS was 3.7 requests per item.
    for (const [name, queue] of Object.entries(byQueue)) expect(queue.delete, name).toBeLessThanOrEqual(queue.receive);
    expect(requests.sqs!.per_item).toBeLessThan(2.5);
    // The run's status once per generate and judge invocation (it was read by every message, 3 an item),
    // the completion read once per part, the part counter's few: about one read unit an item; and
    // generate's first look at each delivered item's ledger row, half a unit (stages.ts generateWork).
    expect(requests.dynamo_read!.per_item).toBeLessThan(2.1);
    // Item documents: the judge's once before recording (it read them in both passes), the aggregate's
    // compaction — 2 an item, where they were 4, then 3 (generate's first look read the document).
    expect(gets['runs/*/items/']! / 1000).toBeLessThan(2.3);
    expect(requests.s3_get!.per_item).toBeLessThan(2.4);
  }, 300_000);

  it('reads the item document once more an item with `--without ledger-look` (generate’s first look in S3, as before), the same items recorded', async () => {
    const { runSimulation } = await import('../../../sim/cloud/simulate.ts');
    const row = await runSimulation({ items: 200, language: 'python' });
    const s3 = await runSimulation({ items: 200, language: 'python', without: ['ledger-look'] });
    const itemGets = (sim: typeof row) => (sim.detail.s3_get_by_prefix as Record<string, number>)['runs/*/items/']! / 200;
    for (const sim of [row, s3]) expect(sim).toMatchObject({ completed: 200, se: 0, missing: 0 });
    expect(itemGets(s3) - itemGets(row)).toBeGreaterThan(0.9);
  }, 300_000);
});
