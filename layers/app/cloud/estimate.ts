/**
 * `polyeval remote run --dry-run`: what a run would cost on the deployed pipeline before it
 * starts — the model's tokens and price (the local dry run's plan), the executors' compute
 * (Lambda GB-seconds, Fargate vCPU-hours) from measured per-sample times, the requests the
 * pipeline makes per item, and the expected wall time at the deployed concurrency.
 *
 * Executor time per sample comes from the newest completed cloud run of the same benchmark and
 * language (its summary's `timing`), else from {@link BUNDLED_TIMING}. Prices are AWS's public
 * list prices in us-east-1 (November 2026 pages); other Regions differ by a few percent.
 *
 * A run is estimated both ways, on demand and through the provider's batch API, side by side.
 * A little over 250 lines: the two modes share one model of the pipeline's work.
 */
import { BUNDLED_SUITES } from '#core/benchmarks/index.ts';
import { EXECUTOR_IMAGES, FARGATE_TASK, JUDGE_MEMORY_MB, languageSpec } from '#core/languages/index.ts';
import { LAMBDA_BUDGET_MS } from './stages.ts';
import { ACCOUNT_CONCURRENCY, concurrencyBudget, RUNNER_RESERVED_CONCURRENCY } from './concurrency-budget.ts';
import type { DryRunPlan } from '../shared/dry-run.ts';
import { CLOUD_BATCH_SCHEMES, cloudBatchWindowHours } from './batch-clients.ts';
import { AWS_PRICES } from '#providers/index.ts';
import { defaultIdleResources, idleMonthlyUsd, scheduledMonthlyUsd } from './idle-cost.ts';
import { BATCH_STAGE_MEMORY_MB, FUNCTION_MEMORY } from './function-memory.ts';
import { generateMapping } from './generate-mapping.ts';
import { BATCH_MAX_ENTRIES } from './send-gate.ts';

/** AWS list prices, us-east-1, USD (one table for the estimate, the simulation and the price table's compute block). */
export { AWS_PRICES };

/** The AZs the stack's VPC spans (infra/network.ts). */
export const VPC_AZS = 2;

/**
 * Interface endpoints the stack deploys (infra/network.ts interfaceEndpointServices): none by
 * default (the Lambda judges are in no VPC, the runners' VPC has none); SQS, Lambda, ECR, ECR
 * Docker and CloudWatch Logs with the opt-in Fargate lane. They bill by the hour whether or not
 * a run is going.
 */
export function interfaceEndpoints(fargateLane: boolean): number {
  return fargateLane ? 5 : 0;
}

/**
 * Executor ms per sample (compile + run) by `<benchmark>/<language>`: what each bundled suite
 * declares it measured for its reference answers (`executorMsPerSample`, an upper figure); a
 * run's own measurements replace it.
 */
export const BUNDLED_TIMING: Readonly<Record<string, number>> = Object.fromEntries(
  BUNDLED_SUITES.flatMap((suite) => Object.entries(suite.executorMsPerSample ?? {}).map(([language, ms]) => [`${suite.benchmark}/${language}`, ms])),
);

/** The deployed pipeline's sizes (infra/config.ts defaults, the executor images' memory). */
export interface Deployment {
  architecture: 'arm64' | 'x86_64';
  /** Context `generateMaxConcurrency`: × 5 model calls in flight, in the batches generate-mapping.ts makes of them. */
  generateConcurrency: number;
  /** Executor invocations at once (the account's Lambda concurrency unless reserved). */
  executorConcurrency: number;
  /** Seconds per model call (assumed; the provider's latency). */
  callSeconds: number;
  /** Whether the Fargate lane (and its three interface endpoints) is deployed. */
  fargateLane: boolean;
}

/**
 * What `cdk deploy` deploys without context (cdk.json, infra/config.ts): arm64, generateMaxConcurrency 5
 * (25 model calls in flight, as 2 invocations × 12), no Fargate lane, so Lambda judges capped at what {@link concurrencyBudget} fits
 * for those settings per image.
 */
export const DEFAULT_DEPLOYMENT: Deployment = {
  architecture: 'arm64',
  generateConcurrency: 5,
  executorConcurrency:
    concurrencyBudget({
      accountConcurrency: ACCOUNT_CONCURRENCY,
      runnerReservedConcurrency: RUNNER_RESERVED_CONCURRENCY,
      generateMaxConcurrency: 5,
      fargateMaxTasks: 0,
      images: EXECUTOR_IMAGES.length,
    }).judge ?? ACCOUNT_CONCURRENCY,
  callSeconds: 3,
  fargateLane: false,
};

/** generate's memory (function-memory.ts, what infra/pipeline.ts deploys). */
const GENERATE_MEMORY_GB = FUNCTION_MEMORY.generate.memoryMb / 1024;
/** The batch stage's memory (function-memory.ts, what infra/batch.ts deploys): a `--batch` run's generate work. */
const BATCH_STAGE_MEMORY_GB = BATCH_STAGE_MEMORY_MB / 1024;
/** aggregate's memory (function-memory.ts). */
const AGGREGATE_MEMORY_GB = FUNCTION_MEMORY.aggregate.memoryMb / 1024;
/**
 * A generate invocation waits for the slowest of its batch's calls: with calls spread ±50 % around
 * their mean (the simulation's provider, sim/cloud/sim-model.ts), the slowest of `batch` takes
 * `0.5 + batch / (batch + 1)` of it (the mean of the largest of `batch` uniform draws on [0.5, 1.5]):
 * 4/3 for 5, 1.42 for 12.
 */
const slowestOfBatch = (batch: number): number => 0.5 + batch / (batch + 1);
/**
 * The judge's own billed seconds per item on the Lambda lane: it sends the item's programs to its
 * runner asynchronously (runner-handoff.ts) and scores the answer when it comes back
 * (continuation.ts), so it no longer bills while the runner works — only its reads, writes and
 * scoring. The simulation of the deployed stages measures it (`npm run bench cloud-scale -- --items
 * 10000 --detail`: `gb_s.execute-python` 688 / 1.25 GB / 10,000 items, with a judge batch of 10 for
 * new items and for the runners' records, several samples per runner invocation; Kotlin's 664);
 * test/integration/cloud-sim/estimate.test.ts holds the two together.
 */
const JUDGE_SECONDS_PER_ITEM = 0.055;
/** aggregate's billed seconds per item (folding records into parts and the final Parquet), measured as {@link JUDGE_SECONDS_PER_ITEM} is (228 GB-s / 2 GB / 10,000: a part stored whole is not compacted again). */
const AGGREGATE_SECONDS_PER_ITEM = 0.0114;
/** Lambda memory in GB of a language's runner and judge (EXECUTOR_IMAGES); 2 GB each for a language without an image. */
function executorMemoryGb(language: string | null): { runner: number; judge: number } {
  const image = EXECUTOR_IMAGES.find((i) => i.languages.includes(language ?? ''));
  return { runner: (image?.memoryMb ?? 2048) / 1024, judge: (image?.judgeMemoryMb ?? JUDGE_MEMORY_MB) / 1024 };
}
const FARGATE_VCPU = FARGATE_TASK.cpu / 1024;
const FARGATE_GB = FARGATE_TASK.memoryMiB / 1024;
/**
 * Billed requests per item of an executed on-demand run on the Lambda lane, by kind: what the
 * simulation of the deployed stages counts (sim/cloud/request-bill.ts; `npm run bench cloud-scale
 * -- --items 10000 --detail`, `requests.<kind>.per_item`, Python, after issue 35's request cuts: the completion check once per
 * part, no second compaction of a stored part, generate's SendMessageBatch, a judge batch of 10
 * and several samples per runner invocation; after the session-15 merges: a judge batch's records in one
 * transaction, status read once an invocation, generate at its default 2 × 12; session 16: the runners' records taken
 * 10 at a time with a 5 s window as new items are, a generate invocation's cost bookings in one transaction
 * (booking-batch.ts), generate's first look at the ledger's item row, not the S3 document; 2026-12-07). The plan's,
 * generate's, the judge's and its continuation's, the runner's and aggregate's calls together;
 * test/integration/cloud-sim/estimate.test.ts fails when the stages' calls and these drift apart.
 */
export const REQUESTS_PER_ITEM = { lambda: 0.69, sqs: 1.45, dynamoWrite: 5.26, dynamoRead: 1.71, s3Put: 1.0, s3Get: 2.06 } as const;
/**
 * Requests a run makes whatever its size, which {@link REQUESTS_PER_ITEM} spreads over 10,000
 * items (there a few percent) and a small run would miss: plan's invocation and queue, and
 * aggregate's — invoked again while the run's last records come in, each invocation reading
 * the ledger's shards (its completion check). The simulation of 10 Python items (one task, n = 10)
 * counts 27 Lambda, 75 SQS, 58 DynamoDB writes and 774 reads, 22 S3 PUTs and 70 GETs (plan 1 and
 * aggregate 20 invocations); this is that less 10 × {@link REQUESTS_PER_ITEM}.
 * test/integration/cloud-sim/estimate.test.ts holds a 10- and a 90-item run to it.
 */
const REQUESTS_PER_RUN = { lambda: 20, sqs: 61, dynamoWrite: 5, dynamoRead: 757, s3Put: 12, s3Get: 49 } as const;
/**
 * The Lambda lane's share of {@link REQUESTS_PER_ITEM}, by who makes it (stages.ts executeWork,
 * continuation.ts judgeWork): the judge's first invocation (a tenth of an invocation: it takes 10
 * messages; its execute queue's send, batched by generate, receive and delete, one DeleteMessageBatch
 * a batch; the run's status read once an invocation, status-once.ts; no S3 GET: the judge looks its
 * item up once, before recording), the continuation the runner's record starts (the answers
 * queue's send by Lambda, receive and delete; a status read; the item's GET) and the
 * runner's asynchronous invocation, each a third of one per item (several samples of one task an
 * invocation: 3,433 records for 10,000 Python items in the simulation, `--detail`'s
 * `invocations` and `sqs_by_queue`). An item that is not executed
 * (no language: ABRICOT's log-likelihoods) is scored and recorded by generate and makes none of
 * them; a Fargate-lane item makes the judge's (a task instead of its invocation) and the
 * runner's, invoked synchronously: no continuation.
 */
const JUDGE_REQUESTS_PER_ITEM = { lambda: 0.15, sqs: 0.49, dynamoRead: 0.12, s3Get: 0 } as const;
type ExecuteRequestKind = keyof typeof JUDGE_REQUESTS_PER_ITEM;
/**
 * Runner records (invocations) per item, which {@link REQUESTS_PER_ITEM} counts at Python's: how
 * many samples of one task share a runner invocation depends on the language's programs and tests
 * (the request's size and time budgets, runner-handoff.ts combineHandoffs), measured as those are
 * and kept with the language (its spec's `executor.samplesPerRunnerInvocation`); a language
 * without the figure is counted at one sample an invocation, the most records.
 */
const recordsPerItem = (language: string | null): number => 1 / (languageSpec(language ?? '')?.executor.samplesPerRunnerInvocation ?? 1);
/** The runner records per item of the simulated run {@link REQUESTS_PER_ITEM} was measured on (10,000 RoCode items, 3,867 records). */
const MEASURED_RECORDS_PER_ITEM = 0.387;
/**
 * Runner records a continuation takes at once: the judge's answers mapping takes 10 with a 5 s window
 * (infra/runners.ts attachHandoff), and the simulation's 3,898 records came in 394 receives (9.9 each).
 */
const RECORDS_PER_CONTINUATION = 9.9;
/**
 * Each record: the runner's invocation, its send to the answers queue by Lambda, and its share of the
 * continuation that takes it (one invocation, receive, delete and status read per {@link RECORDS_PER_CONTINUATION}).
 */
function recordShares(records: number): { continuation: Record<ExecuteRequestKind, number>; runner: Record<ExecuteRequestKind, number> } {
  const continuations = records / RECORDS_PER_CONTINUATION;
  return {
    continuation: { lambda: continuations, sqs: records + 2 * continuations, dynamoRead: continuations, s3Get: 1 },
    runner: { lambda: records, sqs: 0, dynamoRead: 0, s3Get: 0 },
  };
}
/** generate's batch when {@link REQUESTS_PER_ITEM} was measured (generate-mapping.ts at the default generateMaxConcurrency 5: 2 × 12). */
const MEASURED_GENERATE_BATCH = 12;
/**
 * generate's SQS requests per item that depend on its batch: its invocation's ReceiveMessage calls
 * (at most 10 messages each, so a batch of 12 takes 2) and, for an executed item, its SendMessageBatch
 * calls of at most 10 to its execute queue (send-gate.ts): as many of each.
 */
const generateSqsPerItem = (batchSize: number, executed: boolean): number => (Math.ceil(batchSize / BATCH_MAX_ENTRIES) / batchSize) * (executed ? 2 : 1);
/**
 * What a batch run does not make per item of {@link REQUESTS_PER_ITEM}'s SQS requests: generate's
 * queue — plan's sends to it (SendMessageBatch, {@link BATCH_MAX_ENTRIES} an entry each) and
 * generate's receives and deletes at the batch it was measured with (the simulation: 1,000 sends,
 * 1,677 receives and 1,677 deletes for 10,000 items, `sqs_by_queue.generate`). plan writes a batch
 * run's chunks as job documents instead (batch.ts planBatchChunk).
 */
const GENERATE_QUEUE_SQS_PER_ITEM = 1 / BATCH_MAX_ENTRIES + 2 * (Math.ceil(MEASURED_GENERATE_BATCH / BATCH_MAX_ENTRIES) / MEASURED_GENERATE_BATCH);
/**
 * The batch stage sends an executed item's message on its own (batch.ts route → stages.ts
 * routeGenerated: one SendMessage an item, no send gate), where generate's send gate sends its
 * batch's in SendMessageBatch calls of at most 10 (what {@link REQUESTS_PER_ITEM} counts).
 */
const BATCH_STAGE_EXTRA_SENDS_PER_ITEM = 1 - Math.ceil(MEASURED_GENERATE_BATCH / BATCH_MAX_ENTRIES) / MEASURED_GENERATE_BATCH;
/**
 * What the batch stage does for a run on each tick while its jobs are open (batch.ts tickBatches
 * and advance): it lists the run's job documents twice (S3 LIST, billed as a PUT), reads each
 * (a GET a job) and writes the run's status line (the heartbeat: one DynamoDB write). The tick's
 * own invocation is scheduled whether or not a run is going, so it is in `fixed`, not here.
 */
const BATCH_TICK_REQUESTS = { s3List: 2, s3GetPerJob: 1, dynamoWrite: 1 } as const;
/** Seconds of the batch stage per item: reading its result and routing it (assumed; no model call waits). */
const BATCH_STAGE_SECONDS_PER_ITEM = 0.01;
/** The batch stage's schedule (infra/batch.ts BATCH_RATE). */
const BATCH_TICK_SECONDS = 300;

export interface ExecutorTiming {
  ms: number;
  /** `run <id>` (measured in that cloud run) or `bundled <benchmark/language>`. */
  source: string;
}

/** One way of running the items: its model, executor and request cost, and its wall time. */
export interface ModeEstimate {
  model_usd: number | null;
  executor_usd: number;
  requests_usd: number;
  total_usd: number | null;
  /** On demand: at the deployed concurrency; as a batch: the provider's window (an upper bound: most jobs end sooner). */
  wall_time_seconds: number;
}

export interface CloudEstimate extends DryRunPlan {
  language: string | null;
  /** How this run generates (`--batch`); the figures below are this mode's. */
  generation: 'on-demand' | 'batch';
  executor: {
    lane: 'none' | 'lambda' | 'fargate';
    ms_per_item: number | null;
    timing_source: string | null;
    lambda_gb_seconds: number;
    fargate_vcpu_hours: number;
    cost_usd: number;
  };
  requests: { lambda: number; sqs: number; dynamodb_units: number; s3: number; cost_usd: number };
  /** Model (when priced, at this mode's price) + executors + requests. */
  total_usd: number | null;
  /** Both modes side by side; `batch` is null for a provider without a batch API in the cloud. */
  modes: { on_demand: ModeEstimate; batch: ModeEstimate | null };
  /** What the deployment costs while it stands, runs or not (the interface endpoints). */
  /** What the stack bills idle (idle-cost.ts): its interface endpoints, alarm metrics and the watchdog's ticks (which keep the queue alarms), priced by the month. */
  fixed: {
    interface_endpoints: number;
    azs: number;
    alarm_metrics: number;
    usd_per_month: number;
    /** Scheduled function ticks a month: the watchdog's every 15 minutes, the batch stage's every 5. */
    scheduled_ticks: number;
    /** Queues whose DLQ-depth alarm the watchdog keeps: the work queues and the runners' answers queues. */
    watched_queues: number;
    /** Those with an age alarm too (the work queues; one CloudWatch metric read a tick each). */
    aged_queues: number;
    /** What the ticks bill (Scheduler, Lambda, X-Ray, DynamoDB, logs, the watchdog's SQS reads), USD a month; included in usd_per_month. */
    scheduled_usd_per_month: number;
  };
  wall_time_seconds: number;
  deployment: Deployment;
}

type Figures = Pick<CloudEstimate, 'executor' | 'requests' | 'wall_time_seconds'>;

const round = (value: number, digits = 6): number => Number(value.toFixed(digits));

/** The executors' and the pipeline's work for `items`, generated on demand or as batch jobs. */
function pipelineFigures(plan: DryRunPlan, language: string | null, timing: ExecutorTiming | undefined, deployment: Deployment, batch: boolean): Figures {
  const items = plan.items;
  const arch = deployment.architecture;
  const executed = language !== null && timing !== undefined;
  const ms = executed ? timing.ms : 0;
  // As stages.ts laneFor routes: to the Fargate lane only when it is deployed.
  const lane: CloudEstimate['executor']['lane'] = !executed ? 'none' : ms > LAMBDA_BUDGET_MS && deployment.fargateLane ? 'fargate' : 'lambda';
  // generate's mapping as infra/pipeline.ts deploys it: its calls in flight, and the batch each invocation bills one wait for.
  const generate = generateMapping(deployment.generateConcurrency);
  const generatePerSecond = generate.callsInFlight / deployment.callSeconds;
  const executePerSecond = executed && ms > 0 ? deployment.executorConcurrency / (ms / 1000) : Number.POSITIVE_INFINITY;
  const wall = batch ? cloudBatchWindowHours(plan.model) * 3600 : Math.ceil(items / Math.min(generatePerSecond, executePerSecond));
  // On demand, generate waits on every call; as a batch, the batch stage only reads results back and routes them.
  const generateGbSeconds = batch
    ? items * BATCH_STAGE_SECONDS_PER_ITEM * BATCH_STAGE_MEMORY_GB
    : (items / generate.batchSize) * deployment.callSeconds * slowestOfBatch(generate.batchSize) * GENERATE_MEMORY_GB;
  // Model code runs in the language's runner Lambda. On the Lambda lane the judge hands the item to
  // it asynchronously and bills only its own work; a Fargate-lane task waits for its runner, so
  // the item pays the task's time and the runner's GB-seconds.
  const memory = executorMemoryGb(language);
  const runnerGbSeconds = executed ? items * (ms / 1000) * memory.runner : 0;
  const judgeGbSeconds = executed && lane === 'lambda' ? items * JUDGE_SECONDS_PER_ITEM * memory.judge : 0;
  const aggregateGbSeconds = items * AGGREGATE_SECONDS_PER_ITEM * AGGREGATE_MEMORY_GB;
  const fargateVcpuHours = lane === 'fargate' ? (items * ms * FARGATE_VCPU) / 3_600_000 : 0;
  const lambdaGbSeconds = generateGbSeconds + runnerGbSeconds + judgeGbSeconds + aggregateGbSeconds;
  const executorCost =
    lambdaGbSeconds * AWS_PRICES.lambdaGbSecond[arch] +
    fargateVcpuHours * AWS_PRICES.fargateVcpuHour[arch] +
    (fargateVcpuHours / FARGATE_VCPU) * FARGATE_GB * AWS_PRICES.fargateGbHour[arch];
  const chunks = Math.ceil(items / 1000);
  // On demand, generate's invocations at this deployment's batch. A batch run has none: the batch
  // stage's ticks (one per BATCH_TICK_SECONDS, bounded by the window) are scheduled whether or not
  // a run is going (in `fixed`); the run adds only what each tick does for it (BATCH_TICK_REQUESTS).
  const generateInvocations = batch ? 0 : Math.ceil(items / generate.batchSize);
  const ticks = batch ? Math.ceil(wall / BATCH_TICK_SECONDS) : 0;
  // REQUESTS_PER_ITEM counts generate at the batch it was measured with; on demand, this deployment's batch replaces it.
  const generateSqsAdjust = batch ? 0 : generateSqsPerItem(generate.batchSize, executed) - generateSqsPerItem(MEASURED_GENERATE_BATCH, executed);
  // This language's records per item against those of the run REQUESTS_PER_ITEM was measured on.
  const shares = recordShares(recordsPerItem(language));
  const measured = recordShares(MEASURED_RECORDS_PER_ITEM);
  const fewer = (kind: ExecuteRequestKind): number => measured.continuation[kind] + measured.runner[kind] - shares.continuation[kind] - shares.runner[kind];
  // What this item's lane does not make of the Lambda lane's requests per item.
  const absent = (kind: ExecuteRequestKind): number => {
    if (lane !== 'none' && kind !== 's3Get' && fewer(kind) !== 0) return fewer(kind) + absentOnLane(kind);
    return absentOnLane(kind);
  };
  const absentOnLane = (kind: ExecuteRequestKind): number => {
    const [judge, continuation, runner] = [JUDGE_REQUESTS_PER_ITEM[kind], shares.continuation[kind], shares.runner[kind]];
    // Not executed: none of what REQUESTS_PER_ITEM counted for the judge, its continuations and the runner.
    if (lane === 'none') return judge + measured.continuation[kind] + measured.runner[kind];
    // A Fargate task is no Lambda invocation, and waits for its runner, invoked synchronously for
    // each item (one invocation an item, not a share of a batch): no continuation. Its one lookup of
    // the item (before recording) is the continuation's.
    if (lane === 'fargate') return kind === 's3Get' ? 0 : continuation + (kind === 'lambda' ? judge - (1 - runner) : 0);
    return 0;
  };
  const lambdaRequests =
    REQUESTS_PER_RUN.lambda + Math.round(generateInvocations + items * (REQUESTS_PER_ITEM.lambda - 1 / MEASURED_GENERATE_BATCH - absent('lambda')));
  const batchSqs = batch ? (lane !== 'none' ? BATCH_STAGE_EXTRA_SENDS_PER_ITEM : 0) - GENERATE_QUEUE_SQS_PER_ITEM : 0;
  const sqs = REQUESTS_PER_RUN.sqs + Math.round(items * (REQUESTS_PER_ITEM.sqs - absent('sqs') + batchSqs + generateSqsAdjust));
  const writes = REQUESTS_PER_RUN.dynamoWrite + Math.round(items * REQUESTS_PER_ITEM.dynamoWrite) + ticks * BATCH_TICK_REQUESTS.dynamoWrite;
  const reads = REQUESTS_PER_RUN.dynamoRead + Math.round(items * (REQUESTS_PER_ITEM.dynamoRead - absent('dynamoRead')));
  // A batch job: its document, its input file and its output written; its document and output read back;
  // and each tick's listing of the run's jobs and reading of their documents (an upper bound, over the window).
  const puts = REQUESTS_PER_RUN.s3Put + Math.round(items * REQUESTS_PER_ITEM.s3Put) + (batch ? chunks * 5 + ticks * BATCH_TICK_REQUESTS.s3List : 0);
  const gets =
    REQUESTS_PER_RUN.s3Get +
    Math.round(items * (REQUESTS_PER_ITEM.s3Get - absent('s3Get'))) +
    (batch ? chunks * 2 + ticks * chunks * BATCH_TICK_REQUESTS.s3GetPerJob : 0);
  const requestCost =
    lambdaRequests * AWS_PRICES.lambdaRequest +
    sqs * AWS_PRICES.sqsRequest +
    writes * AWS_PRICES.dynamoWriteUnit +
    reads * AWS_PRICES.dynamoReadUnit +
    puts * AWS_PRICES.s3Put +
    gets * AWS_PRICES.s3Get;
  return {
    executor: {
      lane,
      ms_per_item: executed ? ms : null,
      timing_source: executed ? timing.source : null,
      lambda_gb_seconds: round(lambdaGbSeconds, 1),
      fargate_vcpu_hours: round(fargateVcpuHours, 3),
      cost_usd: round(executorCost),
    },
    requests: { lambda: lambdaRequests, sqs, dynamodb_units: writes + reads, s3: puts + gets, cost_usd: round(requestCost) },
    wall_time_seconds: wall,
  };
}

function modeOf(model: number | null, figures: Figures): ModeEstimate {
  return {
    model_usd: model,
    executor_usd: figures.executor.cost_usd,
    requests_usd: figures.requests.cost_usd,
    total_usd: model === null ? null : round(model + figures.executor.cost_usd + figures.requests.cost_usd),
    wall_time_seconds: figures.wall_time_seconds,
  };
}

/**
 * The deployed cost of a run's plan, for the way it generates (`batch`: through the provider's
 * batch API, at the batch price) and, side by side, the other way.
 */
export function estimateCloudRun(
  plan: DryRunPlan,
  language: string | null,
  timing: ExecutorTiming | undefined,
  deployment: Deployment = DEFAULT_DEPLOYMENT,
  batch = false,
): CloudEstimate {
  const onDemand = pipelineFigures(plan, language, timing, deployment, false);
  const batchable = CLOUD_BATCH_SCHEMES.includes(schemeOf(plan.model));
  const asBatch = batchable ? pipelineFigures(plan, language, timing, deployment, true) : undefined;
  // A model without a batch price in the table is billed at its on-demand price as a batch (runCostOf).
  const batchModel = plan.batch_cost_usd ?? plan.cost_usd;
  const modes = { on_demand: modeOf(plan.cost_usd, onDemand), batch: asBatch ? modeOf(batchModel, asBatch) : null };
  const chosen = batch && asBatch ? asBatch : onDemand;
  const mode = batch && modes.batch ? modes.batch : modes.on_demand;
  return {
    ...plan,
    language,
    generation: batch ? 'batch' : 'on-demand',
    ...chosen,
    total_usd: mode.total_usd,
    modes,
    fixed: fixedCost(deployment.fargateLane),
    deployment,
  };
}

/** The deployed stack's idle bill: every resource that bills while it exists (idle-cost.ts). */
function fixedCost(fargateLane: boolean): CloudEstimate['fixed'] {
  const idle = defaultIdleResources(fargateLane, EXECUTOR_IMAGES.length);
  return {
    interface_endpoints: interfaceEndpoints(fargateLane),
    azs: VPC_AZS,
    alarm_metrics: idle.alarmMetrics,
    usd_per_month: idleMonthlyUsd(idle),
    scheduled_ticks: idle.scheduledTicks,
    watched_queues: idle.watchedQueues,
    aged_queues: idle.agedQueues,
    scheduled_usd_per_month: Math.round(scheduledMonthlyUsd(idle) * 100) / 100,
  };
}

function schemeOf(model: string): string {
  const colon = model.indexOf(':');
  return colon < 0 ? model : model.slice(0, colon);
}

/** The API calls the timing lookup needs (layers/app/cloud/remote-client.ts). */
export interface RunsApi {
  listRuns(): Promise<{ runs: Record<string, unknown>[] }>;
  getRun(runId: string): Promise<{ run: Record<string, unknown>; manifest: Record<string, unknown> | null }>;
  getMetrics(runId: string): Promise<Record<string, unknown>>;
}

/** How many earlier runs are looked at, newest first. */
const LOOKBACK = 10;

/** Executor time per sample: the newest completed cloud run of this benchmark and language that measured it, else the bundled suite's. */
export async function executorTiming(api: RunsApi | undefined, benchmark: string, language: string | null): Promise<ExecutorTiming | undefined> {
  if (language === null) return undefined;
  if (api !== undefined) {
    const { runs } = await api.listRuns();
    const candidates = runs
      .filter((r) => r.benchmark === benchmark && (r.status === 'completed' || r.status === 'completed_with_missing'))
      .sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)))
      .slice(0, LOOKBACK);
    for (const run of candidates) {
      const id = String(run.runId);
      const view = await api.getRun(id);
      if ((view.manifest?.language ?? language) !== language) continue;
      const timing = (await api.getMetrics(id)).timing as { execute_ms_mean?: unknown } | undefined;
      if (typeof timing?.execute_ms_mean === 'number') return { ms: timing.execute_ms_mean, source: `run ${id}` };
    }
  }
  const bundled = BUNDLED_TIMING[`${benchmark}/${language}`];
  return bundled === undefined ? undefined : { ms: bundled, source: `bundled ${benchmark}/${language}` };
}
