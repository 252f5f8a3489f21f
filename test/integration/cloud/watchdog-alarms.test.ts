// The run watchdog keeps the work queues' alarms (layers/app/cloud/queue-alarms.ts): the REAL
// handler, built by functions/watchdog/deps.ts from its environment as in Lambda, against a real
// moto_server (SQS, DynamoDB, EventBridge, CloudWatch). A dead-lettered message is told once, and
// its leaving once; a queue whose oldest message stays past its age threshold likewise, and a
// queue kept fed for hours by a healthy run (young messages) not at all. moto does not publish
// SQS's own metrics, so the test puts `ApproximateAgeOfOldestMessage` (AWS/SQS, QueueName) where
// SQS would, and the watchdog reads it with GetMetricData (moto 5.2.1, moto/cloudwatch/models.py
// `get_metric_data`: MetricStat queries by namespace, name, dimensions, period and statistic). The stack routes the
// watchdog's events to the alarm topic with an EventBridge rule (infra/watchdog.ts); moto's
// EventBridge delivers to SQS targets but not SNS ones (moto 5.2.1, moto/events/models.py,
// EventsBackend rule `send_to_targets`: sqs, events, logs, api-destination), so here the
// rule's target is a queue the test reads.
import { CloudWatchClient, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { CreateQueueCommand, DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_ALARM_DETAIL_TYPE, type QueueAlert } from '#app/cloud/queue-alarms.ts';
import { EVENT_SOURCE } from '#aws/eventbridge-publisher.ts';
import { queueNameOfUrl } from '#aws/queue-alarm-store.ts';
import { createWatchdogDeps } from '../../../functions/watchdog/deps.ts';
import { makeHandler } from '../../../functions/watchdog/handler.ts';
import { awsClientConfig, createLedgerTable, createQueueWithDlq, startMoto, useFakeAwsCredentials, type Moto, type QueueWithDlq } from '../../support/moto.ts';
import { lambdaContext } from './cloud-harness.ts';

const TABLE = 'polyeval-ledger';
const BUS = 'polyeval-bus';

let moto: Moto;
let sqs: SQSClient;
let cloudwatch: CloudWatchClient;
let plan: QueueWithDlq;
let answers: QueueWithDlq;
let alarmsUrl: string;
let env: NodeJS.ProcessEnv;
const savedEndpoint = process.env.AWS_ENDPOINT_URL;

beforeAll(async () => {
  useFakeAwsCredentials();
  moto = await startMoto();
  // The handler's own clients (new SQSClient({}) …) find moto through the SDK's endpoint variable.
  process.env.AWS_ENDPOINT_URL = moto.endpoint;
  sqs = new SQSClient(awsClientConfig(moto.endpoint));
  cloudwatch = new CloudWatchClient(awsClientConfig(moto.endpoint));
  await createLedgerTable(new DynamoDBClient(awsClientConfig(moto.endpoint)), TABLE);
  plan = await createQueueWithDlq(sqs, 'plan');
  const aggregate = await createQueueWithDlq(sqs, 'aggregate');
  // A runner's answers queue, as infra/stack.ts names it to the watchdog: dead letters alarm, no age alarm (`=-`).
  answers = await createQueueWithDlq(sqs, 'answers-python');
  alarmsUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'alarm-topic-stand-in' }))).QueueUrl ?? '';
  const alarmsArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: alarmsUrl, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn ?? '';
  const events = new EventBridgeClient(awsClientConfig(moto.endpoint));
  await events.send(new CreateEventBusCommand({ Name: BUS }));
  // The rule infra/watchdog.ts deploys (its pattern), with a queue where the stack has the topic.
  await events.send(
    new PutRuleCommand({
      Name: 'queue-alarms',
      EventBusName: BUS,
      EventPattern: JSON.stringify({ source: [EVENT_SOURCE], 'detail-type': [QUEUE_ALARM_DETAIL_TYPE] }),
    }),
  );
  await events.send(new PutTargetsCommand({ Rule: 'queue-alarms', EventBusName: BUS, Targets: [{ Id: 'topic', Arn: alarmsArn }] }));
  env = {
    TABLE_NAME: TABLE,
    AGGREGATE_QUEUE_URL: aggregate.url,
    WATCHED_QUEUE_URLS: `${plan.url},${aggregate.url},${answers.url}`,
    DEAD_LETTER_QUEUE_URLS: `${plan.dlqUrl},${aggregate.dlqUrl},${answers.dlqUrl}`,
    QUEUE_ALARMS: 'plan=1800,aggregate=3600,answers-python=-',
    ALARM_BUS_NAME: BUS,
  };
}, 60_000);

afterAll(async () => {
  if (savedEndpoint === undefined) delete process.env.AWS_ENDPOINT_URL;
  else process.env.AWS_ENDPOINT_URL = savedEndpoint;
  sqs?.destroy();
  cloudwatch?.destroy();
  await moto?.stop();
});

/** One scheduled tick of the real handler at `now`. */
async function tick(now: Date): Promise<void> {
  const handler = makeHandler({ ...createWatchdogDeps(env), clock: () => now });
  await handler({}, lambdaContext('watchdog'));
}

/** Every notification delivered since the last call (taken off the stand-in queue). */
async function notifications(): Promise<Pick<QueueAlert, 'queue' | 'alarm' | 'state'>[]> {
  const out: Pick<QueueAlert, 'queue' | 'alarm' | 'state'>[] = [];
  for (;;) {
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: alarmsUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    if (!got.Messages?.length) return out;
    for (const m of got.Messages) {
      const event = JSON.parse(m.Body ?? '{}') as { 'detail-type': string; detail: QueueAlert };
      expect(event['detail-type']).toBe(QUEUE_ALARM_DETAIL_TYPE);
      expect(event.detail.message).toMatch(event.detail.state === 'ALARM' ? /^ALARM: / : /^OK: /);
      out.push({ queue: event.detail.queue, alarm: event.detail.alarm, state: event.detail.state });
      await sqs.send(new DeleteMessageCommand({ QueueUrl: alarmsUrl, ReceiptHandle: m.ReceiptHandle }));
    }
  }
}

/** What SQS publishes once a minute: the age of the queue's oldest message at `at`, seconds. */
async function publishAge(url: string, at: Date, seconds: number): Promise<void> {
  await cloudwatch.send(
    new PutMetricDataCommand({
      Namespace: 'AWS/SQS',
      MetricData: [
        {
          MetricName: 'ApproximateAgeOfOldestMessage',
          Dimensions: [{ Name: 'QueueName', Value: queueNameOfUrl(url) }],
          Timestamp: at,
          Value: seconds,
          Unit: 'Seconds',
        },
      ],
    }),
  );
}

/** Takes every message off `url`. */
async function drain(url: string): Promise<void> {
  for (;;) {
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    if (!got.Messages?.length) return;
    for (const m of got.Messages) await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
  }
}

describe('the watchdog’s queue alarms', () => {
  it('tells a dead-lettered message once, not every tick, and tells the DLQ emptied once', async () => {
    const t0 = Date.parse('2026-12-06T10:00:00Z');
    await tick(new Date(t0));
    expect(await notifications()).toEqual([]);

    await sqs.send(new SendMessageCommand({ QueueUrl: plan.dlqUrl, MessageBody: '{"runId":"r1"}' }));
    await tick(new Date(t0 + 15 * 60_000));
    expect(await notifications()).toEqual([{ queue: 'plan', alarm: 'dead_letters', state: 'ALARM' }]);
    await tick(new Date(t0 + 30 * 60_000));
    await tick(new Date(t0 + 45 * 60_000));
    expect(await notifications()).toEqual([]);

    await drain(plan.dlqUrl);
    await tick(new Date(t0 + 60 * 60_000));
    expect(await notifications()).toEqual([{ queue: 'plan', alarm: 'dead_letters', state: 'OK' }]);
    await tick(new Date(t0 + 75 * 60_000));
    expect(await notifications()).toEqual([]);
  }, 60_000);

  it("tells a runner's record dead-lettered on an answers queue once, and never reads or alarms on that queue's age", async () => {
    const t0 = Date.parse('2026-12-08T10:00:00Z');
    const MIN = 60_000;
    await tick(new Date(t0));
    expect(await notifications()).toEqual([]);
    // An hour of old messages as SQS would report them: no age alarm (the queue has none).
    for (let m = 0; m < 60; m += 5) await publishAge(answers.url, new Date(t0 + m * MIN + MIN), 7200);
    await sqs.send(new SendMessageCommand({ QueueUrl: answers.dlqUrl, MessageBody: '{"version":"1.0","requestContext":{},"requestPayload":{}}' }));
    await tick(new Date(t0 + 60 * MIN));
    expect(await notifications()).toEqual([{ queue: 'answers-python', alarm: 'dead_letters', state: 'ALARM' }]);
    await drain(answers.dlqUrl);
    await tick(new Date(t0 + 75 * MIN));
    expect(await notifications()).toEqual([{ queue: 'answers-python', alarm: 'dead_letters', state: 'OK' }]);
  }, 60_000);

  it('tells a queue whose oldest message stays past its threshold once, and its recovery once; a long healthy run never', async () => {
    const t0 = Date.parse('2026-12-07T10:00:00Z');
    const MIN = 60_000;
    await sqs.send(new SendMessageCommand({ QueueUrl: plan.url, MessageBody: '{"runId":"r2"}' }));
    // Two hours of a run keeping plan (threshold 1800 s) fed: never empty, its oldest message 60–240 s old.
    for (let m = 0; m < 120; m += 5) await publishAge(plan.url, new Date(t0 + m * MIN + MIN), 60 + (m % 4) * 60);
    for (let m = 15; m <= 120; m += 15) await tick(new Date(t0 + m * MIN));
    expect(await notifications()).toEqual([]);

    // Then its consumer stops: the oldest message ages past 1800 s in every period.
    for (let m = 120; m < 165; m += 5) await publishAge(plan.url, new Date(t0 + m * MIN + MIN), 1700 + (m - 120) * 60);
    await tick(new Date(t0 + 135 * MIN)); // periods at 1700, 2000, 2300 s: one not over
    expect(await notifications()).toEqual([]);
    await tick(new Date(t0 + 150 * MIN)); // 2600, 2900, 3200 s
    expect(await notifications()).toEqual([{ queue: 'plan', alarm: 'age', state: 'ALARM' }]);
    await tick(new Date(t0 + 165 * MIN));
    expect(await notifications()).toEqual([]);

    // Drained: SQS reports 0 s.
    await drain(plan.url);
    for (let m = 165; m < 180; m += 5) await publishAge(plan.url, new Date(t0 + m * MIN + MIN), 0);
    await tick(new Date(t0 + 180 * MIN));
    expect(await notifications()).toEqual([{ queue: 'plan', alarm: 'age', state: 'OK' }]);
  }, 120_000);
});
