// A model call still throttled after the generate stage's retries is the model's quota, not a
// verdict: the item goes back to its queue with a back-off (ChangeMessageVisibility) and is
// generated once the quota lets it through — no SE record, nothing dead-lettered. The deployed
// generate handler on moto's SQS; the model is Bedrock's runtime wire fake throttling its
// first calls (ThrottlingException, as Bedrock answers a quota), reached by the real provider.
import { ChangeMessageVisibilityCommand, GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { returnLater } from '#aws/sqs-visibility.ts';
import { GENERATE_PROVIDER_OPTIONS } from '#app/cloud/retry-budget.ts';
import { BedrockProvider } from '#providers/index.ts';
import { resolveOptions } from '#providers/options.ts';
import { startBedrockServer, type FakeServer } from '../../fakes/wire-servers/index.ts';
import { useFakeAwsCredentials } from '../../support/moto.ts';
import { apiClient, deliverOnce, drive, startCloud, type Cloud } from './cloud-harness.ts';

const MODEL_ID = 'anthropic.claude-3-5-haiku-20241022-v1:0';
/** Two items × 3 attempts each (the generate stage's 2 retries): every attempt of the first delivery is throttled. */
const THROTTLED = 6;

let cloud: Cloud;
let runtime: FakeServer & { url: string };
const returned: { record: SQSRecord; seconds: number }[] = [];
const { startRun } = apiClient(() => cloud);

beforeAll(async () => {
  useFakeAwsCredentials();
  runtime = (await startBedrockServer({ failFirst: THROTTLED, answer: () => '3' })) as FakeServer & { url: string };
  cloud = await startCloud({
    provider: (m) =>
      Promise.resolve(
        new BedrockProvider(
          m.model.spec,
          MODEL_ID,
          resolveOptions({ ...GENERATE_PROVIDER_OPTIONS, endpointUrl: runtime.url, region: 'us-east-1', retryBaseMs: 1 }),
        ),
      ),
    returnLater: async (record, seconds) => {
      returned.push({ record, seconds });
      await returnLater(cloud.sqs, record, seconds, cloud.queues.generate.url);
    },
  });
}, 120_000);

afterAll(async () => {
  await runtime?.close();
  await cloud?.stop();
});

async function depth(queueUrl: string): Promise<{ visible: number; hidden: number }> {
  const out = await cloud.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return { visible: Number(out.Attributes?.ApproximateNumberOfMessages), hidden: Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible) };
}

const deliver = (stage: 'plan' | 'generate', batchSize: number) => deliverOnce(cloud, stage, batchSize);

describe('a throttled generation in the deployed pipeline', () => {
  it('goes back to its queue for about a minute instead of being recorded SE, and is generated once the quota lets it through', async () => {
    const runId = await startRun({ benchmark: 'sample/abricot', model: `bedrock:${MODEL_ID}`, limit: 2 });
    await deliver('plan', 1);

    const first = await deliver('generate', 5);
    expect(first?.failed).toHaveLength(2);
    expect(runtime.requests.filter((r) => r.fault === 'throttle')).toHaveLength(THROTTLED);
    expect((await cloud.ledger.getRun(runId))?.recorded ?? 0).toBe(0);
    // Hidden for the back-off (60 s ± 20 % on a first receive), well past the queue's own 1-s visibility timeout.
    expect(returned.map((r) => r.seconds).every((s) => s >= 48 && s <= 72)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await depth(cloud.queues.generate.url)).toEqual({ visible: 0, hidden: 2 });

    // The minute passes: the items come back, the quota lets them through.
    for (const { record } of returned)
      await cloud.sqs.send(
        new ChangeMessageVisibilityCommand({ QueueUrl: cloud.queues.generate.url, ReceiptHandle: record.receiptHandle, VisibilityTimeout: 0 }),
      );
    await drive(cloud);

    const run = await cloud.ledger.getRun(runId);
    expect(run?.status).toBe('completed');
    expect(run?.recorded).toBe(2);
    expect(run?.verdicts.SE ?? 0).toBe(0);
    expect(await depth(cloud.queues.generate.dlqUrl)).toEqual({ visible: 0, hidden: 0 });
  }, 120_000);
});
