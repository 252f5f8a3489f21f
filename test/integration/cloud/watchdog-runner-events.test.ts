// The run watchdog leaves a stalled run open while a runner may still hold one of its
// asynchronous events (layers/app/cloud/runner-events.ts): the REAL handler, built by
// functions/watchdog/deps.ts from its environment as infra/watchdog.ts sets it, reads the
// runners' AsyncEventsReceived with the real CloudWatch client from a real moto_server. moto does
// not run Lambda's asynchronous queue, so the test puts the data point where Lambda would
// (AWS/Lambda, FunctionName, one a minute with events: "Types of metrics for Lambda functions",
// read 2026-12-07); moto 5.2.1 answers GetMetricData by namespace, name, dimensions, period and
// statistic, with no values and StatusCode Complete for a range without data
// (moto/cloudwatch/models.py `get_metric_data`), as CloudWatch documents it (MetricDataResult).
import { CloudWatchClient, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoRunLedger } from '#aws/index.ts';
import type { WatchdogReport } from '#app/cloud/watchdog.ts';
import { itemId } from '#core/run/index.ts';
import { createWatchdogDeps } from '../../../functions/watchdog/deps.ts';
import { makeHandler } from '../../../functions/watchdog/handler.ts';
import { awsClientConfig, createLedgerTable, createQueueWithDlq, startMoto, useFakeAwsCredentials, type Moto, type QueueWithDlq } from '../../support/moto.ts';
import { lambdaContext } from './cloud-harness.ts';

const TABLE = 'polyeval-ledger';
const HOUR = 3_600_000;
/** The runners as infra/stack.ts names them to the watchdog (two images). */
const RUNNERS = ['polyeval-runner-python', 'polyeval-runner-kotlin'];

let moto: Moto;
let sqs: SQSClient;
let cloudwatch: CloudWatchClient;
let dynamo: DynamoDBClient;
let aggregate: QueueWithDlq;
let answers: QueueWithDlq;
let env: NodeJS.ProcessEnv;
const savedEndpoint = process.env.AWS_ENDPOINT_URL;

beforeAll(async () => {
  useFakeAwsCredentials();
  moto = await startMoto();
  process.env.AWS_ENDPOINT_URL = moto.endpoint;
  sqs = new SQSClient(awsClientConfig(moto.endpoint));
  cloudwatch = new CloudWatchClient(awsClientConfig(moto.endpoint));
  dynamo = new DynamoDBClient(awsClientConfig(moto.endpoint));
  await createLedgerTable(dynamo, TABLE);
  answers = await createQueueWithDlq(sqs, 'answers-python');
  aggregate = await createQueueWithDlq(sqs, 'aggregate');
  env = {
    TABLE_NAME: TABLE,
    AGGREGATE_QUEUE_URL: aggregate.url,
    WATCHED_QUEUE_URLS: `${answers.url},${aggregate.url}`,
    DEAD_LETTER_QUEUE_URLS: `${answers.dlqUrl},${aggregate.dlqUrl}`,
    RUNNER_FUNCTION_NAMES: RUNNERS.join(','),
    RUNNER_MAX_EVENT_AGE_SECONDS: '21600',
    RUNNER_TIMEOUT_SECONDS: '900',
  };
}, 60_000);

afterAll(async () => {
  if (savedEndpoint === undefined) delete process.env.AWS_ENDPOINT_URL;
  else process.env.AWS_ENDPOINT_URL = savedEndpoint;
  sqs?.destroy();
  cloudwatch?.destroy();
  dynamo?.destroy();
  await moto?.stop();
});

/** A run whose ledger row last moved an hour before `now` (the watchdog's stall window is 30 minutes). */
async function stalledRun(runId: string, now: Date): Promise<void> {
  const ledger = new DynamoRunLedger({ client: dynamo, tableName: TABLE, now: () => new Date(now.getTime() - HOUR) });
  await ledger.createRun({
    runId,
    benchmark: 'rocode',
    model: 'bedrock:m',
    status: 'running',
    items: 4,
    createdAt: new Date(now.getTime() - 2 * HOUR).toISOString(),
  });
}

/** What Lambda publishes when it queues asynchronous events for `functionName`. */
async function received(functionName: string, at: Date, count: number): Promise<void> {
  await cloudwatch.send(
    new PutMetricDataCommand({
      Namespace: 'AWS/Lambda',
      MetricData: [
        { MetricName: 'AsyncEventsReceived', Dimensions: [{ Name: 'FunctionName', Value: functionName }], Timestamp: at, Value: count, Unit: 'Count' },
      ],
    }),
  );
}

/** One tick of the real handler at `now`; `settle` stands for the deployed wait for CloudWatch (RUNNER_METRIC_SETTLE_MS, 3 minutes). */
async function tick(now: Date, settle: () => Promise<void> = () => Promise.resolve()): Promise<WatchdogReport> {
  const deps = createWatchdogDeps(env);
  expect(deps.settle).toBeTypeOf('function');
  return makeHandler({ ...deps, settle, clock: () => now })({}, lambdaContext('watchdog'));
}

async function aggregateMessages(): Promise<string[]> {
  const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: aggregate.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
  // Taken off the queue, as aggregate would: a watched queue left holding them would keep every later tick from closing.
  for (const m of got.Messages ?? []) await sqs.send(new DeleteMessageCommand({ QueueUrl: aggregate.url, ReceiptHandle: m.ReceiptHandle }));
  return (got.Messages ?? []).map((m) => m.Body ?? '');
}

describe('the watchdog reading the runners’ AsyncEventsReceived from CloudWatch', () => {
  it('leaves a stalled run open while a runner received an event within 6 h 15 min, and closes it once none did', async () => {
    // Wall-clock times: CloudWatch (and moto) keep what PutMetricData gets with its timestamp; the ticks are at chosen instants after it.
    const base = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 8 * HOUR);
    await stalledRun('r-waiting', new Date(base.getTime() + 7 * HOUR));
    // The Kotlin runner took 12 events at base + 1 h (its reserved concurrency busy: they wait in Lambda's queue).
    await received(RUNNERS[1] ?? '', new Date(base.getTime() + HOUR), 12);

    // At base + 7 h the events are 6 h old: one may still be running (until base + 7 h 16 min).
    const waiting = await tick(new Date(base.getTime() + 7 * HOUR));
    expect(waiting).toMatchObject({ stalled: ['r-waiting'], queued: 0, actions: [] });
    expect(waiting.waiting).toContain(`${RUNNERS[1]} received 12 asynchronous event(s)`);
    expect(waiting.waiting).toContain(`until ${new Date(base.getTime() + 7 * HOUR + 16 * 60_000).toISOString()}`);
    expect(await aggregateMessages()).toEqual([]);

    // At base + 7 h 20 min none can be held any more (run, or past its age and sent to the answers queue): closed as before.
    const closed = await tick(new Date(base.getTime() + 7 * HOUR + 20 * 60_000));
    expect(closed.waiting).toBeUndefined();
    expect(closed.actions).toEqual([expect.objectContaining({ runId: 'r-waiting', action: 'aggregate' })]);
    expect((await aggregateMessages()).map((body) => JSON.parse(body) as unknown)).toEqual([
      expect.objectContaining({ runId: 'r-waiting', allowMissing: true }),
    ]);
  });

  it('does not close a run on a tick right after a hand-off whose data point CloudWatch publishes only while the watchdog waits', async () => {
    // Now: the first test's events (7 h ago) can no longer be held, so only this hand-off can keep the run open.
    const now = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    await stalledRun('r-handoff', now);
    // The Python runner received the item a few seconds before the tick; Lambda publishes the minute's count after the first read.
    const report = await tick(now, () => received(RUNNERS[0] ?? '', new Date(now.getTime() - 5_000), 1));
    expect(report).toMatchObject({ stalled: expect.arrayContaining(['r-handoff']) as unknown, queued: 0, actions: [] });
    expect(report.waiting).toContain(`${RUNNERS[0]} received 1 asynchronous event(s)`);
    expect(await aggregateMessages()).toEqual([]);
  });

  it('keeps of each dead-lettered message its run and items only, not its body (a DLQ of large records must fit the watchdog)', async () => {
    // A dead-lettered item whose message carries a large program (a runner's record may be up to 1 MiB).
    const body = JSON.stringify({ schema_version: 1, item: { runId: 'r-dead', taskId: 'ro/7', sample: 2 }, code: 'x'.repeat(200_000) });
    await sqs.send(new SendMessageCommand({ QueueUrl: answers.dlqUrl, MessageBody: body }));
    const letters = await createWatchdogDeps(env).deadLetters?.();
    expect(letters).toEqual([{ runId: 'r-dead', itemIds: [itemId('r-dead', 'ro/7', 2)] }]);
    expect(JSON.stringify(letters).length).toBeLessThan(200);
    // Left in place, as the watchdog reads them: taken off here so no other test sees it.
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: answers.dlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    expect(got.Messages?.map((m) => m.Body)).toEqual([body]);
    for (const m of got.Messages ?? []) await sqs.send(new DeleteMessageCommand({ QueueUrl: answers.dlqUrl, ReceiptHandle: m.ReceiptHandle }));
  });
});
