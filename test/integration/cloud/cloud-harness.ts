/**
 * The deployed pipeline on moto_server, for tests: bucket, ledger table, the stage and execute
 * queues (each with a DLQ), an EventBridge bus whose rule forwards polyeval events to a queue,
 * the REAL handlers built with makeHandler(deps) over the real AWS adapters, and a driver
 * that polls each queue and invokes its handler with genuine SQS events, as Lambda's event
 * source mapping does (batches, partial batch failures, redelivery after the visibility timeout).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { spawn } from 'node:child_process';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient, SendMessageCommand, SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { returnLater } from '#aws/sqs-visibility.ts';
import { DynamoRunLedger, S3BlobStore, SqsWorkQueue, deliverSqsBatch } from '#aws/index.ts';
import { DynamoPartCounter } from '#aws/dynamo-part-counter.ts';
import { moveMessages, peekMessages } from '#aws/sqs-dead-letters.ts';
import { watchRuns } from '#app/cloud/watchdog.ts';
import { deadLetterOf, type RedrivePair } from '#app/cloud/run-control.ts';
import type { Executor, ResultsQuery } from '#core/ports.ts';
import type { WorkItem } from '#core/run/plan.ts';
import { RunContextCache } from '#app/cloud/context.ts';
import { ToolchainRecorder } from '#app/cloud/toolchain-record.ts';
import { EventBridgePublisher } from '#aws/eventbridge-publisher.ts';
import { dynamoSetRunItems } from '#aws/dynamo-run-items.ts';
import type { AggregateMessage, GeneratedMessage, PlanMessage } from '#app/cloud/messages.ts';
import { costOfManifest } from '#app/cloud/cost.ts';
import type { ContextSource } from '#app/cloud/context.ts';
import { createCloudProvider } from '#app/cloud/provider.ts';
import { packageVersions } from '../../../functions/shared/runtime.ts';
import { makeHandler as makeAggregate } from '../../../functions/aggregate/handler.ts';
import { makeHandler as makeApi, type ApiHandler } from '../../../functions/api/handler.ts';
import { ContainerSandbox } from '../../../functions/execute/container-sandbox.ts';
import { makeHandler as makeExecute } from '../../../functions/execute/handler.ts';
import { judgeRunner } from '../../../functions/execute/judge-runner.ts';
import { FakeLambdaService } from '../../fakes/lambda-service.ts';
import { makeHandler as makeGenerate } from '../../../functions/generate/handler.ts';
import { makeHandler as makePlan } from '../../../functions/plan/handler.ts';
import { expect } from 'vitest';
import { ROOT } from '../../support/cli.ts';
import { postJson, type apiEvent } from './api-events.ts';
import { FAKE_AWS, awsClientConfig, createBucket, createLedgerTable, createQueueWithDlq, startMoto, type Moto, type QueueWithDlq } from '../../support/moto.ts';

// Powertools without X-Ray, CloudWatch or log noise (set before any handler is built).
process.env.POWERTOOLS_TRACE_ENABLED = 'false';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_DEV = 'false';

/** An execute container's sandbox executor as functions/execute/deps.ts builds it (no judge runner: programs run in-process). */
export function sandboxExecutor(store: S3BlobStore): () => Promise<Executor> {
  const sandbox = new ContainerSandbox({ store, env: {} });
  return () => sandbox.get();
}

export const BUCKET = 'polyeval-test';
export const TABLE = 'polyeval-ledger';
/** Short, so a failed message comes back within the test. */
export const VISIBILITY_SEC = 1;
export const MAX_RECEIVE = 3;

export type StageName = 'plan' | 'generate' | 'python' | 'aggregate';
type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export interface Cloud {
  moto: Moto;
  s3: S3Client;
  sqs: SQSClient;
  dynamo: DynamoDBClient;
  store: S3BlobStore;
  ledger: DynamoRunLedger;
  parts: DynamoPartCounter;
  queues: Record<StageName, QueueWithDlq>;
  /** The Fargate lane's python queue: no Lambda consumes it, the consumer (functions/execute/consumer.ts) does. */
  fargateQueue: QueueWithDlq;
  /** Receives every event the bus's rule matches (source `polyeval`). */
  eventsQueueUrl: string;
  api: ApiHandler;
  handlers: Record<StageName, SqsHandler>;
  /** Executor lanes of the languages besides python asked for (CloudOptions.executeLanguages), drained after python's. */
  lanes: Record<string, { queue: QueueWithDlq; handler: SqsHandler }>;
  /** With CloudOptions.handoff: the python runner's answers queue (its destination), consumed by the python judge, and its Lambda service. */
  handoff?: { answers: QueueWithDlq; runner: FakeLambdaService };
  stop(): Promise<void>;
}

/**
 * moto_server serves requests on threads and applies an `ADD` as read-modify-write without a
 * lock, so two concurrent counter updates of one row can lose one (DynamoDB's are atomic).
 * The handlers run concurrently here as in Lambda; their DynamoDB requests go one at a time.
 */
function serialisedDynamo(client: DynamoDBClient): DynamoDBClient {
  let tail: Promise<unknown> = Promise.resolve();
  client.middlewareStack.add(
    (next) => (args) => {
      const run = tail.then(() => next(args));
      tail = run.catch(() => undefined);
      return run;
    },
    { step: 'finalizeRequest', name: 'serialiseForMoto' },
  );
  return client;
}

/** A Lambda context good enough for middy and Powertools. */
export function lambdaContext(name: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${FAKE_AWS.region}:123456789012:function:${name}`,
    memoryLimitInMB: '1024',
    awsRequestId: `req-${Math.random().toString(16).slice(2)}`,
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'test',
    getRemainingTimeInMillis: () => 300_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export interface CloudOptions {
  results?: ResultsQuery;
  chunkSize?: number;
  /** The generate stage's provider per run (default: the deployed code's, createCloudProvider). */
  provider?: ContextSource['provider'];
  /** The generate stage's price per run (default: the shipped price table). */
  costOf?: ContextSource['costOf'];
  /** Bootstrap resamples of the aggregate function (default 200; the deployed function uses 1000). */
  iterations?: number;
  /** plan's fewest records per batch job of a model (the deployment's Bedrock quotas); default 1. */
  batchMinRecords?: (modelSpec: string) => number;
  /** Languages besides python with a Lambda executor lane (e.g. `cpp`); by default only python is executed. */
  executeLanguages?: readonly string[];
  /** Wraps the executors' sandbox, e.g. to play a runner that leaks what it must not. */
  wrapExecutor?: (executor: Executor) => Executor;
  /** The python judge's after-item check (the deployed one discards an unclean container; default none). */
  afterItem?: () => Promise<unknown>;
  /**
   * Variables over the functions' environment: the keys generate reads from SSM and the
   * deployment's PROVIDER_KEY_HOSTS (`-c providerKeyHosts`). Default: OPENAI_API_KEY may go to
   * the loopback fakes (as a deployment allowing its own server would say).
   */
  providerEnv?: Record<string, string>;
  /** generate's back-off of a throttled item (default: the deployed one, ChangeMessageVisibility on moto). */
  returnLater?: (record: SQSRecord, seconds: number) => Promise<void>;
  /**
   * The python judge hands off to a runner function as the deployed Lambda judge does
   * (RUNNER_HANDOFF=async, functions/execute/judge-runner.ts): Event invocations of a local
   * Lambda service (test/fakes/lambda-service.ts) running the runner's invocation code
   * (runner-runtime.ts), whose destination sends each invocation record to an answers queue on
   * moto that the judge's handler consumes. `record` may rewrite a record before it is sent
   * (e.g. one Lambda gives up on: EventAgeExceeded).
   */
  handoff?: { record?: (record: Record<string, unknown>) => Record<string, unknown> };
}

/** The runner's invocation code in its own process, as the Lambda service's runtime. */
function startRunnerRuntime(runtimeApi: string) {
  return spawn(process.execPath, ['--import', 'tsx', `${ROOT}/test/integration/cloud/runner-runtime.ts`], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', AWS_LAMBDA_RUNTIME_API: runtimeApi },
  });
}

export async function startCloud(options: CloudOptions = {}): Promise<Cloud> {
  const moto = await startMoto();
  const config = awsClientConfig(moto.endpoint);
  const s3 = new S3Client(config);
  const sqs = new SQSClient(config);
  const dynamo = serialisedDynamo(new DynamoDBClient(config));
  const eventBridge = new EventBridgeClient(config);
  await createBucket(s3, BUCKET);
  await createLedgerTable(dynamo, TABLE);
  const queues = {} as Record<StageName, QueueWithDlq>;
  for (const name of ['plan', 'generate', 'python', 'aggregate'] as const) {
    queues[name] = await createQueueWithDlq(sqs, `polyeval-${name}`, { maxReceiveCount: MAX_RECEIVE, visibilityTimeoutSec: VISIBILITY_SEC });
  }
  const laneQueues: Record<string, QueueWithDlq> = {};
  for (const language of options.executeLanguages ?? []) {
    laneQueues[language] = await createQueueWithDlq(sqs, `polyeval-${language}`, { maxReceiveCount: MAX_RECEIVE, visibilityTimeoutSec: VISIBILITY_SEC });
  }
  const fargateQueue = await createQueueWithDlq(sqs, 'polyeval-fargate-python', { maxReceiveCount: MAX_RECEIVE, visibilityTimeoutSec: VISIBILITY_SEC });
  const events = await createQueueWithDlq(sqs, 'polyeval-events');
  await eventBridge.send(new CreateEventBusCommand({ Name: 'polyeval-bus' }));
  await eventBridge.send(new PutRuleCommand({ Name: 'all-polyeval', EventBusName: 'polyeval-bus', EventPattern: JSON.stringify({ source: ['polyeval'] }) }));
  await eventBridge.send(new PutTargetsCommand({ Rule: 'all-polyeval', EventBusName: 'polyeval-bus', Targets: [{ Id: 'queue', Arn: events.arn }] }));
  await sqs.send(new SetQueueAttributesCommand({ QueueUrl: events.url, Attributes: { VisibilityTimeout: '0' } }));

  const store = new S3BlobStore({ client: s3, bucket: BUCKET });
  const ledger = new DynamoRunLedger({ client: dynamo, tableName: TABLE });
  const parts = new DynamoPartCounter({ client: dynamo, tableName: TABLE });
  const send = <T>(queueUrl: string) => new SqsWorkQueue<T>({ client: sqs, queueUrl });
  const clock = () => new Date();
  const aggregateQueue = send<AggregateMessage>(queues.aggregate.url);
  const providerEnv = {
    ...process.env,
    AWS_ENDPOINT_URL_S3: moto.endpoint,
    PROVIDER_KEY_HOSTS: 'OPENAI_API_KEY=127.0.0.1|localhost',
    ...options.providerEnv,
  };
  const noResults: ResultsQuery = { sql: () => Promise.resolve([]), close: () => Promise.resolve() };

  // One executor for every lane: the lanes are drained one after another, as one container would run them.
  let handoff: { answers: QueueWithDlq; runner: FakeLambdaService; judge: NonNullable<ReturnType<typeof judgeRunner>> } | undefined;
  if (options.handoff) {
    const answers = await createQueueWithDlq(sqs, 'polyeval-python-answers', { maxReceiveCount: MAX_RECEIVE, visibilityTimeoutSec: VISIBILITY_SEC });
    const rewrite = options.handoff.record ?? ((record) => record);
    // Lambda sends the record as one SQS message's body to the destination queue (infra/runners.ts).
    const runner = new FakeLambdaService({
      start: startRunnerRuntime,
      destination: async (record) => {
        await sqs.send(new SendMessageCommand({ QueueUrl: answers.url, MessageBody: JSON.stringify(rewrite(record)) }));
      },
    });
    const { endpoint } = await runner.listen();
    const client = new LambdaClient({ ...awsClientConfig(endpoint), maxAttempts: 1 });
    const judge = judgeRunner({ RUNNER_FUNCTION_NAME: 'runner-python', RUNNER_HANDOFF: 'async' }, () => undefined, client);
    if (!judge?.handoff) throw new Error('judgeRunner did not hand off with RUNNER_HANDOFF=async');
    handoff = { answers, runner, judge };
  }
  // The stack's redrive pairs (infra/stack.ts): every work queue, and with the hand-off the runner's answers queue.
  const pairs: RedrivePair[] = [
    ...Object.entries(queues),
    ['fargate-python', fargateQueue] as const,
    ...(handoff ? [['answers-python', handoff.answers] as const] : []),
  ].map(([name, q]) => ({
    name,
    dlqUrl: q.dlqUrl,
    queueUrl: q.url,
  }));
  const api = makeApi({
    store,
    ledger,
    results: options.results ?? noResults,
    planQueue: send<PlanMessage>(queues.plan.url),
    clock,
    pairs,
    move: (pair, select) => moveMessages({ client: sqs, from: pair.dlqUrl, to: pair.queueUrl, select, waitSec: 1 }),
    // Path-style links on moto's loopback endpoint (awsClientConfig): the deployed client signs virtual-hosted https ones.
    signedGetUrl: (key, seconds) => store.presignedGetUrl(key, seconds),
  });
  // With a hand-off, the judge's sandbox runs checker programs only; samples' programs go to the runner (functions/execute/deps.ts).
  const sandbox = handoff
    ? (() => {
        const judgeSandbox = new ContainerSandbox({ store, env: {}, runner: { runner: handoff.judge.runner, isolation: handoff.judge.isolation } });
        return () => judgeSandbox.get();
      })()
    : sandboxExecutor(store);
  const wrap = options.wrapExecutor;
  const executor = wrap ? async () => wrap(await sandbox()) : sandbox;
  const handlers: Record<StageName, SqsHandler> = {
    plan: makePlan({
      store,
      ledger,
      setItems: dynamoSetRunItems(dynamo, TABLE),
      planQueue: send<PlanMessage>(queues.plan.url),
      generateQueue: send<WorkItem>(queues.generate.url),
      load: { packageRoot: ROOT, cacheDir: `${ROOT}/.polyeval/cache`, env: providerEnv },
      createProvider: (spec) => createCloudProvider(spec, {}, providerEnv),
      code: { version: 'test', revision: null, dirty: null },
      packages: packageVersions(ROOT),
      ...(options.chunkSize ? { chunkSize: options.chunkSize } : {}),
      ...(options.batchMinRecords ? { batchMinRecords: options.batchMinRecords } : {}),
    }),
    generate: makeGenerate({
      ledger,
      parts,
      aggregateQueue,
      contexts: new RunContextCache({
        store,
        ledger,
        clock,
        // As the deployed generate: the keys (SSM's, here the environment's) in the providers' env.
        provider: options.provider ?? ((m) => createCloudProvider(m.model.spec, { env: providerEnv }, providerEnv)),
        costOf: options.costOf ?? costOfManifest,
      }),
      executeQueues: {
        python: send<GeneratedMessage>(queues.python.url),
        ...Object.fromEntries(Object.entries(laneQueues).map(([language, q]) => [language, send<GeneratedMessage>(q.url)])),
      },
      fargateQueues: { python: send<GeneratedMessage>(fargateQueue.url) },
      // moto's queue ARNs name no URL this client reaches: the queue's own URL.
      returnLater: options.returnLater ?? ((record, seconds) => returnLater(sqs, record, seconds, queues.generate.url)),
    }),
    python: makeExecute({
      ledger,
      parts,
      aggregateQueue,
      // As functions/execute/deps.ts: the toolchains judged with are recorded once per run and language.
      contexts: new RunContextCache({ store, ledger, clock, executor, toolchains: new ToolchainRecorder({ store, clock }) }),
      ...(handoff?.judge.handoff ? { handoff: handoff.judge.handoff } : {}),
      ...(options.afterItem ? { afterItem: options.afterItem } : {}),
    }),
    aggregate: makeAggregate({
      store,
      ledger,
      clock,
      events: new EventBridgePublisher({ client: eventBridge, busName: 'polyeval-bus' }),
      cacheDir: `${ROOT}/.polyeval/cache`,
      iterations: options.iterations ?? 200,
    }),
  };
  const lanes = Object.fromEntries(
    Object.entries(laneQueues).map(([language, queue]) => [
      language,
      {
        queue,
        handler: makeExecute({
          ledger,
          parts,
          aggregateQueue,
          contexts: new RunContextCache({ store, ledger, clock, executor, toolchains: new ToolchainRecorder({ store, clock }) }),
        }),
      },
    ]),
  );
  return {
    lanes,
    moto,
    s3,
    sqs,
    dynamo,
    store,
    ledger,
    parts,
    queues,
    fargateQueue,
    eventsQueueUrl: events.url,
    api,
    handlers,
    ...(handoff ? { handoff: { answers: handoff.answers, runner: handoff.runner } } : {}),
    stop: async () => {
      await handoff?.runner.close();
      for (const client of [s3, sqs, dynamo, eventBridge]) client.destroy();
      await moto.stop();
    },
  };
}

/** Visible + in-flight + delayed messages of a queue. */
export async function queueDepth(sqs: SQSClient, queueUrl: string): Promise<number> {
  const names = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] as const;
  const out = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [...names] }));
  return names.reduce((sum, name) => sum + Number(out.Attributes?.[name] ?? 0), 0);
}

const STAGES: readonly StageName[] = ['plan', 'generate', 'python', 'aggregate'];

/** The messages waiting in every stage's queue (what the watchdog reads as the pipeline's depth). */
export async function pipelineDepth(cloud: Cloud): Promise<number> {
  let total = 0;
  for (const name of STAGES) total += await queueDepth(cloud.sqs, cloud.queues[name].url);
  // The runner's answers queue is watched as a work queue (infra/stack.ts): a record waiting there is work in flight.
  if (cloud.handoff) total += await queueDepth(cloud.sqs, cloud.handoff.answers.url);
  return total;
}

/** Delivers one stage's queue to its handler, five messages at a time, until it is empty; no other stage runs. */
export async function drainStage(cloud: Cloud, stage: StageName): Promise<void> {
  while (await deliverOnce(cloud, stage, 5));
}

/** One invocation of `stage`'s handler with up to `batchSize` messages of its queue, as its event source mapping would; undefined when the queue had none. */
export function deliverOnce(cloud: Cloud, stage: StageName, batchSize: number): ReturnType<typeof deliverSqsBatch> {
  return deliverSqsBatch({
    client: cloud.sqs,
    queueUrl: cloud.queues[stage].url,
    region: FAKE_AWS.region,
    handler: (e) => cloud.handlers[stage](e, lambdaContext(stage)),
    batchSize,
  });
}

/**
 * One watchdog pass as it would run `minutesLater` from now, over the cloud's ledger and
 * queues. `deadLetters: false` runs it without the dead-letter queues' bodies.
 */
export function watchdogAt(cloud: Cloud, minutesLater: number, options: { deadLetters?: boolean } = {}) {
  return watchRuns({
    ledger: cloud.ledger,
    aggregateQueue: new SqsWorkQueue<AggregateMessage>({ client: cloud.sqs, queueUrl: cloud.queues.aggregate.url }),
    pipelineDepth: () => pipelineDepth(cloud),
    ...(options.deadLetters === false
      ? {}
      : {
          deadLetters: () =>
            peekMessages(
              cloud.sqs,
              [...STAGES.map((name) => cloud.queues[name].dlqUrl), ...(cloud.handoff ? [cloud.handoff.answers.dlqUrl] : [])],
              undefined,
              deadLetterOf,
            ),
        }),
    clock: () => new Date(Date.now() + minutesLater * 60_000),
  });
}

export interface DriveOptions {
  /** Invoke the handler twice, concurrently, with each batch (an at-least-once duplicate). */
  duplicate?: boolean;
  /** Give up after this many polling rounds. */
  maxRounds?: number;
  /** Messages the python judge takes at once from its queue and its answers queue (default 1; the stack's is infra/executors.ts JUDGE_BATCH). */
  judgeBatch?: number;
  /** Throw, naming them, when messages went to a dead-letter queue during this drive (default: report them in the stats only). */
  failOnDeadLetters?: boolean;
  /** How long to wait on a busy runner with nothing else to deliver before failing, naming the runner's counts (default 120 s; a runner invocation here takes seconds). */
  runnerStuckMs?: number;
}

export interface DriveStats {
  invocations: Record<StageName, number>;
  failed: Record<StageName, number>;
  /** Messages that went to a dead-letter queue during this drive (up to 10 a queue are named). */
  deadLettered: { queue: string; messageId: string; receiveCount: string; body: string }[];
}

/** Every dead-letter queue drive() feeds: the stages', the answers queue's and the lanes'. */
function deadLetterQueues(cloud: Cloud): { name: string; url: string }[] {
  return [
    ...STAGES.map((name) => ({ name, url: cloud.queues[name].dlqUrl })),
    ...(cloud.handoff ? [{ name: 'answers-python', url: cloud.handoff.answers.dlqUrl }] : []),
    ...Object.entries(cloud.lanes).map(([name, lane]) => ({ name, url: lane.queue.dlqUrl })),
  ];
}

/** Up to 10 messages of a dead-letter queue, looked at and left in place (visible again at once). */
async function peekDeadLetters(cloud: Cloud, url: string) {
  const received = await cloud.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 0, MessageSystemAttributeNames: ['All'] }),
  );
  return received.Messages ?? [];
}

/** The ids already in each non-empty dead-letter queue (when a drive begins). */
async function deadLetterIds(cloud: Cloud): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const { url } of deadLetterQueues(cloud)) {
    if ((await queueDepth(cloud.sqs, url)) === 0) continue;
    for (const m of await peekDeadLetters(cloud, url)) ids.add(m.MessageId ?? '');
  }
  return ids;
}

/** The dead-lettered messages not among `before` (up to 10 a queue are looked at). */
async function newDeadLetters(cloud: Cloud, before: Set<string>): Promise<DriveStats['deadLettered']> {
  const out: DriveStats['deadLettered'] = [];
  for (const { name, url } of deadLetterQueues(cloud)) {
    if ((await queueDepth(cloud.sqs, url)) === 0) continue;
    for (const m of await peekDeadLetters(cloud, url)) {
      if (before.has(m.MessageId ?? '')) continue;
      out.push({ queue: name, messageId: m.MessageId ?? '', receiveCount: m.Attributes?.ApproximateReceiveCount ?? '?', body: (m.Body ?? '').slice(0, 300) });
    }
  }
  return out;
}

/**
 * Polls every stage queue and invokes its handler like the event source mapping, until
 * every queue is empty (failed messages come back after the visibility timeout, or go to
 * their DLQ after maxReceiveCount receives).
 */
export async function drive(cloud: Cloud, options: DriveOptions = {}): Promise<DriveStats> {
  const order: StageName[] = ['plan', 'generate', 'python', 'aggregate'];
  const batchSize: Record<StageName, number> = { plan: 1, generate: 5, python: options.judgeBatch ?? 1, aggregate: 1 };
  const stats: DriveStats = {
    invocations: { plan: 0, generate: 0, python: 0, aggregate: 0 },
    failed: { plan: 0, generate: 0, python: 0, aggregate: 0 },
    deadLettered: [],
  };
  const deadBefore = await deadLetterIds(cloud);
  // Other languages' executor lanes are drained right after python's (their invocations are not counted).
  const steps = order.flatMap((stage) => [
    { stage: stage as StageName | undefined, queueUrl: cloud.queues[stage].url, handler: cloud.handlers[stage], batch: batchSize[stage] },
    // The python judge also consumes its runner's invocation records (a hand-off), counted as python's.
    ...(stage === 'python' && cloud.handoff
      ? [{ stage: 'python' as StageName | undefined, queueUrl: cloud.handoff.answers.url, handler: cloud.handlers.python, batch: options.judgeBatch ?? 1 }]
      : []),
    ...(stage === 'python' ? Object.values(cloud.lanes).map((lane) => ({ stage: undefined, queueUrl: lane.queue.url, handler: lane.handler, batch: 1 })) : []),
  ]);
  let busySince: number | undefined; // since when drive() has waited on nothing but the runner
  for (let round = 0; round < (options.maxRounds ?? 2000); round++) {
    let delivered = false;
    for (const { stage, queueUrl, handler, batch } of steps) {
      const name = stage ?? 'execute';
      const invoke = async (event: SQSEvent): Promise<SQSBatchResponse> => {
        if (stage) stats.invocations[stage]++;
        if (!options.duplicate) return handler(event, lambdaContext(name));
        const [first] = await Promise.all([handler(event, lambdaContext(name)), handler(structuredClone(event), lambdaContext(name))]);
        return first;
      };
      const applied = await deliverSqsBatch({ client: cloud.sqs, queueUrl, region: FAKE_AWS.region, handler: invoke, batchSize: batch });
      if (applied !== undefined) {
        delivered = true;
        if (stage) stats.failed[stage] += applied.failed.length;
      }
    }
    if (delivered) {
      busySince = undefined;
      continue;
    }
    // Drained only if the runner was idle BEFORE the queues were read. The runner is the one producer
    // drive() does not run itself: its record lands on the answers queue whenever its invocation ends.
    // Asked after the reads (as until session 16), a record that landed between the answers queue's read
    // and the question was missed: drive() returned, the record stayed in its queue unread, the run
    // `running` with nothing recorded — the load flake of runner-handoff.test.ts (a read slowed by a
    // loaded machine holds that window open; cloud-harness.test.ts holds it open on purpose). Nothing
    // starts the runner while drive() runs no handler, so idle before the reads stays idle through them.
    const runner = cloud.handoff?.runner;
    if (runner && !runner.idle) {
      // A runner that never answers would otherwise hold drive() until the test's own timeout, which names nothing.
      busySince ??= Date.now();
      const stuckMs = options.runnerStuckMs ?? 120_000;
      if (Date.now() - busySince > stuckMs)
        throw new Error(
          `drive(): the runner has been busy for ${stuckMs / 1000} s with nothing else to deliver (invoked ${runner.payloads.length}×, answered ${runner.answers.length}×)`,
        );
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    busySince = undefined;
    let pending = 0;
    for (const { queueUrl } of steps) pending += await queueDepth(cloud.sqs, queueUrl);
    if (pending === 0) {
      stats.deadLettered = await newDeadLetters(cloud, deadBefore);
      if (options.failOnDeadLetters && stats.deadLettered.length > 0)
        throw new Error(
          `drive(): ${stats.deadLettered.length} message(s) went to a dead-letter queue: ${stats.deadLettered
            .map((d) => `${d.queue} ${d.messageId} (ApproximateReceiveCount ${d.receiveCount}) ${d.body}`)
            .join('; ')}`,
        );
      return stats;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the pipeline did not drain');
}

/** The HTTP API as a test calls it: any event, and `POST /runs` that must be accepted (202). */
export function apiClient(cloud: () => Cloud) {
  async function call(event: ReturnType<typeof apiEvent>): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await cloud().api(event, lambdaContext('api'));
    return { status: response.statusCode ?? 0, body: JSON.parse(response.body ?? '{}') as Record<string, unknown> };
  }
  async function startRun(spec: Record<string, unknown>): Promise<string> {
    const response = await call(postJson('/runs', spec));
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    return String(response.body.run_id);
  }
  return { call, startRun };
}
