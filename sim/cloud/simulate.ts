/**
 * `npm run bench cloud-scale -- --items N`: one RoCode run of N items through the REAL stage
 * handlers (api's startRuns → plan → generate → execute/judge → runner → record → aggregate,
 * the watchdog every 15 minutes, the cost guard on every model call) over in-memory adapters
 * behind the same ports, in virtual time, with AWS's documented limits enforced (./limits).
 * A little over 250 lines: it is the one place that wires the simulated account together.
 */
import './quiet-env.ts';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TransientError } from '#core/errors.ts';
import type { ExecutionJob, Executor, RunLedger } from '#core/ports.ts';
import type { ProgramHost } from '#core/judging/io-tests-judge.ts';
import { executeOnHost } from '#core/scorers/index.ts';
import { RunContextCache } from '#app/cloud/context.ts';
import { ToolchainRecorder } from '#app/cloud/toolchain-record.ts';
import { deadLetterOf } from '#app/cloud/run-control.ts';
import { costOfManifest } from '#app/cloud/cost.ts';
import { LambdaProgramRunner, LAMBDA_RUNNER_ISOLATION } from '#app/cloud/lambda-runner.ts';
import { handoffInvoke } from '#app/cloud/runner-handoff.ts';
import type { AggregateMessage, CloudWorkItem, GeneratedMessage, PlanMessage } from '#app/cloud/messages.ts';
import { startRuns } from '#app/cloud/start.ts';
import { PLAN_CHUNK } from '#app/cloud/plan.ts';
import { watchRuns } from '#app/cloud/watchdog.ts';
import { runnerEventsWaitReason } from '#app/cloud/runner-events.ts';
import { keys } from '#core/run/index.ts';
import { parseRunSummary } from '#core/report/index.ts';
import { loadSource } from '#app/shared/load-benchmark.ts';
import { LambdaInvoker } from '#aws/lambda-invoker.ts';
import { executeJob } from '#sandbox/executor.ts';
import { AWS_PRICES, DEFAULT_DEPLOYMENT } from '#app/cloud/estimate.ts';
import { LEDGER_SHARDS } from '#aws/dynamo-ledger-schema.ts';
import { makeHandler as makeAggregate } from '../../functions/aggregate/handler.ts';
import { makeHandler as makeExecute } from '../../functions/execute/handler.ts';
import { makeHandler as makeGenerate } from '../../functions/generate/handler.ts';
import { makeHandler as makePlan } from '../../functions/plan/handler.ts';
import { generateRocodeBench } from '../rocode-generator.ts';
import { laneFor } from '#app/cloud/stages.ts';
import type { Task } from '#core/types.ts';
import { kotlinTaskRows } from './kotlin-tasks.ts';
import { functions, GENERATE_MAX_RECEIVE_COUNT, MAX_RECEIVE_COUNT, visibilityMs } from './deployment.ts';
import { DynamoLimits, TRANSACTION_HOLD_MS } from './limits/dynamodb.ts';
import { RECURSION_HOP_LIMIT } from './limits/recursion.ts';
import { S3PrefixRates } from './limits/s3-prefix.ts';
import { DUPLICATE_RATE, SimSqsQueue } from './limits/sqs.ts';
import { CLAUDE_3_HAIKU_US_EAST_1, ModelQuotas, type ModelQuota } from './limits/model-quota.ts';
import { SimLambda, type FunctionSpec, type SqsHandler } from './sim-lambda.ts';
import { SimLedger } from './sim-ledger.ts';
import { expectedVerdicts, PROFILES, runProgram, runRequest, simProvider, USAGE, type SimLanguage } from './sim-model.ts';
import { simSender } from './sim-sender.ts';
import { SimStore } from './sim-store.ts';
import { VirtualTime } from './virtual-time.ts';
import { sweepNeighbours } from './sweep.ts';
import { bottleneckOf, type SimResult } from './result.ts';
import { requestBill } from './request-bill.ts';

/** Fixes the simulation can revert, and limits it can lift, one `--without` each. */
export const FIXES = [
  'plan-fanout',
  'transient-redelivery',
  'cost-row',
  'runner-reservation',
  'ledger-shards',
  'call-ids',
  'part-shards',
  'quota-requeue',
  'async-handoff',
  // Several samples of one task per runner invocation: the judge takes 10 messages (and 10 records) at once (infra/executors.ts JUDGE_BATCH).
  'runner-batch',
  // A judge invocation's records counted in one ledger transaction (dynamo-record-batch.ts), not one each.
  'batch-records',
  // A generate invocation's cost bookings in one ledger transaction (dynamo-booking-batch.ts), not one per model call.
  'batch-bookings',
  // generate's calls in flight in fewer, larger batches (generate-mapping.ts: 2 × 12 at the default); without: generateMaxConcurrency × 5, as before.
  'generate-batch',
  // generate's first look at a delivered item reads its ledger row (RunLedger.countedVerdict, half a read unit), not its document in S3 (stages.ts generateWork); without: the S3 GET, as before.
  'ledger-look',
  // The watchdog leaves a stalled run open while the runner may still hold an asynchronous event (runner-events.ts); without: it closes the run as completed_with_missing, as before.
  'runner-wait',
] as const;
export const LIMITS = ['recursion', 'inactive', 'transaction-conflicts', 'duplicates'] as const;
export type Without = (typeof FIXES)[number] | (typeof LIMITS)[number];

export interface SimOptions {
  items: number;
  /** Samples per task (RoCode's protocol: 10). */
  n?: number;
  language?: SimLanguage;
  without?: readonly Without[];
  generateMaxConcurrency?: number;
  seed?: number;
  /** Items per plan chunk (default plan.ts's 1,000; smaller shows the recursion limit on a small run). */
  chunkSize?: number;
  /** The other executor images' judges and runners busy beside this run, as in a nightly sweep (./sweep.ts). */
  sweep?: boolean;
  /** The model's on-demand quota (default: Claude 3 Haiku's in us-east-1, ./limits/model-quota.ts). */
  modelQuota?: ModelQuota;
  /**
   * The functions' architecture, billed at its GB-second price (default: what cdk.json deploys,
   * DEFAULT_DEPLOYMENT). Durations are the profiles' (sim-model.ts) on either: no arm64 timing
   * of the toolchains was measured.
   */
  architecture?: 'arm64' | 'x86_64';
  /**
   * The runner's reserved concurrency instead of the deployed one (concurrency-budget.ts): small, its
   * asynchronous events wait in Lambda's queue (retried after each throttle) longer than the watchdog's stall window.
   */
  runnerReserved?: number;
  /**
   * Another run's work holds all of the runner's concurrency from `fromMs` for `forMs` (virtual;
   * SimLambda.hold): this run's events wait in Lambda's asynchronous queue all that time.
   */
  runnerHeld?: { fromMs: number; forMs: number };
  /** Wraps a stage's real handler (sim/cloud/measure-memory.ts reads each invocation's peak memory around it). */
  wrapHandler?: (stage: 'plan' | 'generate' | 'execute' | 'aggregate', handler: SqsHandler) => SqsHandler;
}

const MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';
const WATCHDOG_MS = 15 * 60_000;
/** The runner's MaximumEventAgeInSeconds (infra/runners.ts RUNNER_MAX_EVENT_AGE, 6 h), SimLambda.invokeAsync's default. */
const RUNNER_MAX_EVENT_AGE_MS = 6 * 3_600_000;
/**
 * How long (virtual) the simulation waits for the run to end. A run that never ends (a message no
 * stage can finish, redriven forever) would otherwise keep the watchdog ticking without end: the loop
 * only awaits settled promises, so not even a test's timeout could stop it. Past this the result
 * says the run never ended.
 */
export const SIM_HORIZON_MS = 3 * 24 * 3_600_000;

function mulberry(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A host for checker programs: the simulated tasks compare tokens, so none is ever run. */
const NO_HOST: ProgramHost = {
  prepare: () => Promise.reject(new Error('the simulation runs no checker program')),
  prepareUnitTest: () => Promise.reject(new Error('the simulation runs no checker program')),
} as unknown as ProgramHost;

export async function runSimulation(options: SimOptions): Promise<SimResult> {
  const without = new Set(options.without ?? []);
  const architecture = options.architecture ?? DEFAULT_DEPLOYMENT.architecture;
  const n = options.n ?? 10;
  const language = options.language ?? 'python';
  const tasks = Math.ceil(options.items / n);
  const chunkSize = options.chunkSize ?? PLAN_CHUNK;
  const random = mulberry(options.seed ?? 19);
  const time = new VirtualTime();
  const dynamo = new DynamoLimits(without.has('transaction-conflicts') ? 0 : TRANSACTION_HOLD_MS);
  const s3 = new S3PrefixRates();
  const store = new SimStore(time, s3, random);
  const ledger = new SimLedger({
    time,
    limits: dynamo,
    costOnRunRow: without.has('cost-row'),
    random,
    shards: without.has('ledger-shards') ? 0 : LEDGER_SHARDS,
    bookingIds: !without.has('call-ids'),
    partShards: !without.has('part-shards'),
    batchRecords: !without.has('batch-records'),
  });
  const lambda = new SimLambda(time, { random, ...(without.has('recursion') ? {} : { recursionLimit: RECURSION_HOP_LIMIT }) });
  const fns = functions(language, {
    generateMaxConcurrency: options.generateMaxConcurrency ?? 5,
    runnerReservation: !without.has('runner-reservation'),
    fargateMaxTasks: 4,
    generateBatch: !without.has('generate-batch'),
  });
  if (options.runnerReserved !== undefined) fns.runner = { ...fns.runner, reserved: options.runnerReserved };
  for (const fn of [fns.plan, fns.generate, fns.judge, fns.runner, fns.aggregate]) lambda.define(fn);
  if (options.runnerHeld) lambda.hold(fns.runner.name, options.runnerHeld.fromMs, options.runnerHeld.forMs);
  const sweep = options.sweep
    ? sweepNeighbours(lambda, language, {
        runnerReservation: !without.has('runner-reservation'),
        judgeMaxConcurrency: fns.caps.judge,
        inactive: !without.has('inactive'),
        random,
      })
    : undefined;
  // The scenario: a deployment idle for weeks, its functions Inactive (limits/function-state.ts):
  // the runner (a VPC function), and the judge — in no VPC since issue 35, but kept Inactive here
  // as the worse case: "a function becomes inactive when it has been idle long enough for Lambda
  // to reclaim the external resources that were configured for it" (Lambda function states), and
  // a container image's optimized copy is such a resource.
  if (!without.has('inactive')) for (const fn of [fns.runner, fns.judge]) lambda.states.markInactive(fn.name);
  const queue = (fn: FunctionSpec, duplicates?: { rate: number; random: () => number }, maxReceiveCount = MAX_RECEIVE_COUNT) =>
    new SimSqsQueue<unknown>(fn.name, visibilityMs(fn), maxReceiveCount, undefined, duplicates);
  // At-least-once delivery where a duplicate costs money: the generate queue (a copy calls the model again).
  const generateCopies = without.has('duplicates') ? undefined : { rate: DUPLICATE_RATE, random };
  // Throttled items come back to generate's queue, so it redrives after more receives (retry-budget.ts); without the fix, as before.
  const requeue = !without.has('quota-requeue');
  const queues = {
    plan: queue(fns.plan),
    generate: queue(fns.generate, generateCopies, requeue ? GENERATE_MAX_RECEIVE_COUNT : MAX_RECEIVE_COUNT),
    execute: queue(fns.judge),
    aggregate: queue(fns.aggregate),
    // The runner's destination queue (its invocation records), consumed by the judge (runner-handoff.ts).
    answers: queue(fns.judge),
  };
  const handsOff = !without.has('async-handoff');
  const quotas = new ModelQuotas(options.modelQuota ?? CLAUDE_3_HAIKU_US_EAST_1);
  const clock = () => time.date();
  const root = mkdtempSync(join(tmpdir(), 'pe-cloud-sim-'));
  try {
    const dataset = join(root, 'tasks.jsonl');
    const rows = language === 'kotlin' ? kotlinTaskRows(tasks) : generateRocodeBench(tasks, { samplesPerTask: 1 }).tasks;
    writeFileSync(dataset, `${rows.join('\n')}\n`);
    mkdirSync(join(root, 'cache'));
    let modelCalls = 0;
    // Each call's virtual span: the most at once is what the model's rate limit saw (generate-mapping.ts keeps it at what was configured).
    const callSpans: [number, number][] = [];
    const provider = simProvider(time, MODEL, language, random, quotas, (startMs, endMs) => callSpans.push([startMs, endMs]));
    // Billed calls: a call the quota refused is not billed (and not counted).
    const counted = { ...provider, generate: (req: Parameters<typeof provider.generate>[0]) => provider.generate(req).then((g) => ((modelCalls += 1), g)) };
    const aggregateQueue = simSender<AggregateMessage>(queues.aggregate, lambda);
    const runnerClient = { send: (command: { input: { Payload?: Uint8Array } }) => invokeRunner(lambda, fns.runner, command, random) };
    const invoker = new LambdaInvoker({ client: runnerClient as never, functionName: fns.runner.name });
    const sync = without.has('transient-redelivery') ? asBefore(invoker) : (payload: string) => invoker.invoke(payload);
    const runner = new LambdaProgramRunner({ invoke: handsOff ? handoffInvoke(sync) : sync, functionName: fns.runner.name });
    // The judge's InvocationType Event: the runner runs later, its record goes to the answers queue.
    const invokeEvent = (payload: string) =>
      Promise.resolve(
        lambda.invokeAsync(
          fns.runner,
          payload,
          () => Promise.resolve(runRequest(JSON.stringify((JSON.parse(payload) as { request: unknown }).request), random, fns.runner.memoryMb)),
          queues.answers,
        ),
      );
    const scoreOnce = (job: ExecutionJob) => executeOnHost(job, NO_HOST, { token: () => 'sim', runner });
    const judge: Executor = {
      execute: (job) => executeJob(job, scoreOnce, { label: LAMBDA_RUNNER_ISOLATION, failed: LAMBDA_RUNNER_ISOLATION }),
      // Recorded once per run by the judge (toolchain-record.ts), as a deployed judge's own sandbox reports it.
      toolchains: (_options, languages) =>
        Promise.resolve(
          [...(languages ?? [language])].map((l) => ({
            language: l,
            compiler: 'sim',
            version: 'sim',
            available: true,
            detail: 'no program runs in the simulator',
          })),
        ),
      close: () => Promise.resolve(),
    };
    const events: string[] = [];
    // Each RunCompleted's status, in order: a run closed as completed_with_missing and completed later shows both.
    const completions: string[] = [];
    const plan = makePlan({
      store,
      ledger,
      setItems: ledger.setItems,
      // Reverted fan-out: the first chunk's fan-out is dropped and `chained` sends each next chunk.
      planQueue: without.has('plan-fanout') ? { send: () => Promise.resolve() } : simSender<PlanMessage>(queues.plan, lambda),
      generateQueue: simSender<CloudWorkItem>(queues.generate, lambda),
      load: { packageRoot: process.cwd(), cacheDir: join(root, 'cache') },
      loadSource: (source, opts) => loadSource(source.kind === 'file' ? { ...source, ref: dataset } : source, opts),
      createProvider: () => Promise.resolve(counted),
      code: { version: 'sim', revision: null, dirty: null },
      packages: {},
      chunkSize,
    });
    const handlers: Record<Exclude<keyof typeof queues, 'answers'>, SqsHandler> = {
      plan: without.has('plan-fanout') ? chained(plan, simSender<PlanMessage>(queues.plan, lambda), options.items, chunkSize) : plan,
      generate: makeGenerate({
        ledger: without.has('ledger-look') ? withoutLedgerLook(ledger) : ledger,
        parts: ledger,
        aggregateQueue,
        contexts: new RunContextCache({ store, ledger, clock, provider: () => Promise.resolve(counted), costOf: costOfManifest, requeueThrottled: requeue }),
        // ChangeMessageVisibility on the message being handled (its receipt handle is its id here).
        returnLater: (record, seconds) => Promise.resolve(queues.generate.changeVisibility(record.receiptHandle, seconds * 1000, time.now())),
        executeQueues: {
          [language]: sweep ? sweep.mirror(simSender<GeneratedMessage>(queues.execute, lambda)) : simSender<GeneratedMessage>(queues.execute, lambda),
        },
        fargateQueues: {},
        batchBookings: !without.has('batch-bookings'),
      }),
      execute: makeExecute({
        ledger,
        parts: ledger,
        aggregateQueue,
        contexts: new RunContextCache({ store, ledger, clock, executor: () => Promise.resolve(judge), toolchains: new ToolchainRecorder({ store, clock }) }),
        ...(handsOff ? { handoff: { invokeEvent } } : {}),
      }),
      aggregate: makeAggregate({
        store,
        ledger,
        clock,
        events: {
          publish: (type, detail) => {
            events.push(type);
            if (type === 'RunCompleted') completions.push(String((detail as { status?: unknown }).status));
            return Promise.resolve();
          },
        },
        cacheDir: join(root, 'cache'),
        iterations: 100,
      }),
    };
    if (options.wrapHandler)
      for (const stage of ['plan', 'generate', 'execute', 'aggregate'] as const) handlers[stage] = options.wrapHandler(stage, handlers[stage]);
    lambda.map({ fn: fns.plan, queue: queues.plan, batchSize: 1, maxConcurrency: fns.caps.plan, handler: handlers.plan });
    lambda.map({
      fn: fns.generate,
      queue: queues.generate,
      batchSize: fns.generateBatch.batchSize,
      // Lambda waits up to the window for a full batch of more than 10 (services-sqs-parameters, generate-mapping.ts).
      ...(fns.generateBatch.maxBatchingWindowS > 0 ? { batchWindowMs: fns.generateBatch.maxBatchingWindowS * 1000 } : {}),
      maxConcurrency: fns.caps.generate,
      handler: handlers.generate,
    });
    // With the hand-off, two mappings share the judge's cap as infra/executors.ts splits it.
    const judgeCap = fns.caps.judge;
    const executeCap = judgeCap === undefined || !handsOff ? judgeCap : Math.max(2, Math.ceil(judgeCap / 2));
    const answersCap = judgeCap === undefined ? undefined : Math.max(2, Math.floor(judgeCap / 2));
    // The judge's batch (infra/executors.ts JUDGE_BATCH: 10 messages, a 5 s batching window).
    const batching = handsOff && !without.has('runner-batch');
    const judgeBatch = batching ? 10 : 1;
    lambda.map({
      fn: fns.judge,
      queue: queues.execute,
      batchSize: judgeBatch,
      ...(batching ? { batchWindowMs: 5_000 } : {}),
      ...(executeCap === undefined ? {} : { maxConcurrency: executeCap }),
      handler: handlers.execute,
    });
    lambda.map({ fn: fns.aggregate, queue: queues.aggregate, batchSize: 1, maxConcurrency: fns.caps.aggregate, handler: handlers.aggregate });
    // The judge's second event source: the runner's invocation records (same function, same cap).
    if (handsOff)
      lambda.map({
        fn: fns.judge,
        queue: queues.answers,
        batchSize: judgeBatch,
        // infra/runners.ts attachHandoff: the same batch and window as new items (JUDGE_BATCH).
        ...(batching ? { batchWindowMs: 5_000 } : {}),
        ...(answersCap === undefined ? {} : { maxConcurrency: answersCap }),
        handler: handlers.execute,
      });

    const api = { fn: 'api', startMs: 0, elapsedMs: 0, parallelMs: 0, chain: { api: 1 } };
    const [started] = await time.within(api, () =>
      startRuns({ ledger, planQueue: simSender<PlanMessage>(queues.plan, lambda), clock, randomSuffix: () => 'sim' }, {
        benchmark: language === 'kotlin' ? 'kotlin-humaneval:s3://polyeval-sim/datasets/sumalistei.jsonl' : 'rocode:s3://polyeval-sim/datasets/suma.jsonl',
        model: `bedrock:${MODEL}`,
        n,
        language,
        temperature: 0.2,
        timeScale: 1,
      } as never),
    );
    const runId = started?.run_id ?? '';
    let endMs: number | undefined;
    // The runner's asynchronous configuration (infra/runners.ts): events kept 6 h (SimLambda.invokeAsync's default), its timeout.
    const runnerWindow = { maxEventAgeMs: RUNNER_MAX_EVENT_AGE_MS, timeoutMs: fns.runner.timeoutMs, periodMs: 60_000 };
    let watchdogWaits = 0;
    const terminal = new Set(['completed', 'completed_with_missing', 'failed', 'stopped', 'cancelled']);
    const tick = async (): Promise<void> => {
      const run = await ledger.getRun(runId);
      if (run !== undefined && terminal.has(run.status)) {
        endMs ??= Date.parse(run.updatedAt) - time.epochMs;
        return;
      }
      const depth = Object.values(queues).reduce((sum, q) => sum + q.depth, 0);
      const deadLetters = () => Promise.resolve(Object.values(queues).flatMap((q) => q.dlq.map((m) => deadLetterOf(JSON.stringify(m.body)))));
      // What the deployed watchdog reads (functions/watchdog/deps.ts): the runner's AsyncEventsReceived per minute, judged by the same rule.
      const runnerEventsWaiting = (now: Date) =>
        Promise.resolve(
          runnerEventsWaitReason([{ functionName: fns.runner.name, points: lambda.asyncEventsReceived(fns.runner.name), complete: true }], now, runnerWindow),
        );
      const report = await watchRuns({
        ledger,
        aggregateQueue,
        pipelineDepth: () => Promise.resolve(depth),
        deadLetters,
        clock,
        ...(handsOff && !without.has('runner-wait') ? { runnerEventsWaiting } : {}),
      });
      if (report.waiting !== undefined) watchdogWaits += 1;
      if (time.now() + WATCHDOG_MS <= SIM_HORIZON_MS) time.at(time.now() + WATCHDOG_MS, tick);
    };
    time.at(WATCHDOG_MS, tick);
    await time.drain();
    const run = await ledger.getRun(runId);
    const verdicts = run?.verdicts ?? {};
    const recorded = run?.recorded ?? 0;
    const gbSeconds = Object.values(lambda.stats.gbSeconds).reduce((a, b) => a + b, 0);
    const callUsd = (USAGE.promptTokens * 0.25 + USAGE.completionTokens * 1.25) / 1e6;
    const modelUsd = modelCalls * callUsd;
    const invocations = Object.values(lambda.stats.invocations).reduce((a, b) => a + b, 0);
    const sqsCalls = Object.values(queues).map((q) => q.requests);
    // The runners' records on the answers queue (asynchronous hand-off): Lambda's send. The judge's receives
    // and deletes of them are the answers queue's own counts, in sqsCalls (issue 35: they were added twice).
    const records = lambda.stats.destinationRecords;
    const requests = requestBill(
      {
        lambdaInvocations: invocations,
        sqs: {
          send: sqsCalls.reduce((sum, r) => sum + r.send, 0) + records,
          receive: sqsCalls.reduce((sum, r) => sum + r.receive, 0),
          delete: sqsCalls.reduce((sum, r) => sum + r.delete, 0),
          changeVisibility: sqsCalls.reduce((sum, r) => sum + r.changeVisibility, 0),
        },
        dynamo: { writeUnits: dynamo.writeUnits, readUnits: dynamo.readUnits },
        s3: store.requests,
      },
      options.items,
    );
    const requestsUsd = requests.total_usd;
    // The executor time the real aggregate measured from the records (the summary's `timing`): what `remote run --dry-run` reads back (estimate.ts executorTiming).
    const summaryKey = keys.summary(runId);
    const summaryText = await store.getText(summaryKey);
    const timing = summaryText === undefined ? undefined : parseRunSummary(summaryText, summaryKey).timing;
    const dlq = Object.values(queues).reduce((sum, q) => sum + q.dlq.length, 0);
    const expired = Object.values(queues).reduce((sum, q) => sum + q.expired, 0);
    return {
      items: options.items,
      completed: recorded - (verdicts.SE ?? 0),
      se: verdicts.SE ?? 0,
      missing: options.items - recorded,
      dlq,
      virtual_wall_s: Math.round((endMs ?? time.now()) / 1000),
      lambda_gb_s: Math.round(gbSeconds),
      cost_usd: Number((gbSeconds * AWS_PRICES.lambdaGbSecond[architecture] + modelUsd + requestsUsd).toFixed(2)),
      bottleneck: bottleneckOf({
        lambda,
        dynamo,
        s3,
        dlq,
        se: verdicts.SE ?? 0,
        missing: options.items - recorded,
        expired,
        status: run?.status ?? 'none',
        generateMaxConcurrency: options.generateMaxConcurrency ?? 5,
        generateMapping: fns.generateBatch,
        transientAsSe: without.has('transient-redelivery'),
        quota: { throttled: quotas.throttled, describe: quotas.describe(), model: MODEL },
        // Each recorded item's call booked once is the run's right cost; more is a call booked twice.
        overbookedCalls: Math.round(((run?.costUsd ?? 0) - recorded * callUsd) / callUsd),
      }),
      detail: {
        /** Invocations by function and each queue's SQS requests: who makes the requests per item (estimate.ts splits them so). */
        invocations: { ...lambda.stats.invocations },
        sqs_by_queue: Object.fromEntries(Object.entries(queues).map(([name, q]) => [name, { ...q.requests }])),
        /** S3 GETs by what they read (sim-store.ts keyPrefix): who makes the GETs per item. */
        s3_get_by_prefix: { ...store.getsByPrefix },
        status: run?.status,
        reason: run?.reason,
        verdicts,
        expected: expectedVerdicts(tasks, n, language),
        runner: runnerProfile(language, fns),
        architecture,
        booked_model_usd: Number((run?.costUsd ?? 0).toFixed(4)),
        model_usd: Number(modelUsd.toFixed(4)),
        model_calls: modelCalls,
        model_quota: quotas.quota,
        model_throttles: quotas.throttled,
        duplicate_deliveries: queues.generate.duplicated,
        expired_messages: expired,
        events,
        completions,
        conflicts: dynamo.conflicts,
        dynamo_throttles: dynamo.throttles,
        peak_partition_wcu: dynamo.peakWrite,
        run_partition_peak_wcu: dynamo.peakWrites.get(`RUN#${runId}`) ?? 0,
        throttles: lambda.stats.throttles,
        recursion_dropped: lambda.stats.recursionDropped,
        not_active: lambda.stats.notActive,
        timeouts: lambda.stats.timeouts,
        handoff: handsOff
          ? {
              records: lambda.stats.destinationRecords,
              async_retries: lambda.stats.asyncRetries,
              delivery_failures: lambda.stats.destinationDeliveryFailures,
              // Watchdog ticks that found the run stalled and the queues empty, and left it open: the runner may still hold an event.
              watchdog_waits: watchdogWaits,
            }
          : 'sync',
        cold_starts: lambda.stats.coldStarts,
        peak: lambda.stats.peak,
        /** generate's mapping as deployed (generate-mapping.ts) and the most model calls the model saw at once. */
        generate_mapping: { ...fns.generateBatch },
        peak_model_calls: peakOverlap(callSpans),
        gb_s: lambda.stats.gbSeconds,
        requests,
        ...(timing ? { timing } : {}),
        without: [...without],
        ...(sweep ? { sweep: sweep.stats() } : {}),
        simulator: { store_mb: Math.round(store.heldBytes / 1e6), held_items: dynamo.heldItems, rss_mb: Math.round(process.memoryUsage().rss / 1e6) },
      },
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The judge's Lambda client: the runner invoked through SimLambda, with the SDK's own retries
 * (3 attempts; throttling and 5xx errors, back-off from 100 ms) in virtual time.
 */
async function invokeRunner(
  lambda: SimLambda,
  fn: FunctionSpec,
  command: { input: { Payload?: Uint8Array } },
  random: () => number,
): Promise<{ Payload: Uint8Array; FunctionError?: string }> {
  const payload = new TextDecoder().decode(command.input.Payload ?? new Uint8Array());
  for (let attempt = 1; ; attempt++) {
    try {
      const out = await lambda.invokeSync(fn, Buffer.byteLength(payload), () => Promise.resolve(runProgram(payload, random, fn.memoryMb)));
      return { Payload: new TextEncoder().encode(out.payload), ...(out.functionError ? { FunctionError: out.functionError } : {}) };
    } catch (error) {
      const name = (error as Error).name;
      if (attempt >= 3 || (name !== 'TooManyRequestsException' && name !== 'ResourceNotReadyException')) throw error;
      lambda.time.spend(random() * 100 * 2 ** attempt);
    }
  }
}

/** The invoker as it was before TransientError: the SDK's error as it came (the executor records SE). */
function asBefore(invoker: LambdaInvoker): (payload: string) => ReturnType<LambdaInvoker['invoke']> {
  return (payload) => invoker.invoke(payload).catch((error: unknown) => Promise.reject(error instanceof TransientError ? error.cause : error));
}

/** plan as it was before the fan-out: every chunk sends the plan message of the next one (a chain). */
function chained(plan: SqsHandler, planQueue: ReturnType<typeof simSender<PlanMessage>>, items: number, chunkSize: number): SqsHandler {
  return async (event, context) => {
    const out = await plan(event, context);
    for (const record of event.Records) {
      const message = JSON.parse(record.body) as PlanMessage;
      const next = message.offset + chunkSize;
      if (next < items) await planQueue.send([{ id: `${message.runId}/plan/${next}`, body: { ...message, offset: next, request: undefined } as PlanMessage }]);
    }
    return out;
  };
}

/** The executor's cost profile the run used: its functions' memory, the runner's times and the lane its items take (stages.ts laneFor). */
function runnerProfile(language: SimLanguage, fns: ReturnType<typeof functions>): Record<string, unknown> {
  const task = (language === 'kotlin' ? { kind: 'unit-tests' } : { kind: 'io-tests', tests: Array.from({ length: 5 }), timeLimitMs: 1000 }) as unknown as Task;
  return {
    runner_mb: fns.runner.memoryMb,
    judge_mb: fns.judge.memoryMb,
    ...PROFILES[language],
    lane: laneFor(task, 1, true),
  };
}

/** The most spans `[start, end)` open at one instant. */
function peakOverlap(spans: readonly (readonly [number, number])[]): number {
  const edges = spans.flatMap(([start, end]) => [[start, 1] as const, [end, -1] as const]);
  // At one instant an end comes before a start: a call ending as another starts is not two at once.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let peak = 0;
  for (const [, step] of edges) peak = Math.max(peak, (open += step));
  return peak;
}

/** The ledger without {@link RunLedger.countedVerdict}: generate's first look reads the item's document in S3, as before (`--without ledger-look`). */
function withoutLedgerLook(ledger: SimLedger): RunLedger {
  return new Proxy(ledger, {
    get(target, name) {
      if (name === 'countedVerdict') return undefined;
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
