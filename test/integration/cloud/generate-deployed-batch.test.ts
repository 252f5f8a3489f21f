// generate takes the batch its deployed mapping hands it (generate-mapping.ts: 12 at the default
// generateMaxConcurrency, up to 25), and every model call of that batch goes out at once: none
// waits behind another for a provider slot, so the batch's worst case stays one call's
// (retry-budget.ts) inside the function's timeout. The real generate handler on moto's SQS, the
// batch received as Lambda's pollers gather one above 10 (ReceiveMessage returns at most 10, so
// several receives make one event), the model Bedrock's runtime wire fake holding each answer
// until the whole batch is in flight, reached by the real provider with the generate stage's options.
import { ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applySqsBatchResponse, queueArnFromUrl, toLambdaSqsEvent } from '#aws/index.ts';
import { generateMapping } from '#app/cloud/generate-mapping.ts';
import { DEFAULT_DEPLOYMENT } from '#app/cloud/estimate.ts';
import { GENERATE_PROVIDER_OPTIONS } from '#app/cloud/retry-budget.ts';
import { BedrockProvider } from '#providers/index.ts';
import { resolveOptions } from '#providers/options.ts';
import { startBedrockServer, type FakeServer } from '../../fakes/wire-servers/index.ts';
import { FAKE_AWS, useFakeAwsCredentials } from '../../support/moto.ts';
import { apiClient, deliverOnce, lambdaContext, startCloud, type Cloud } from './cloud-harness.ts';

const MODEL_ID = 'anthropic.claude-3-5-haiku-20241022-v1:0';
/** How long the fake holds an answer when the barrier is not reached: a batch that queued its calls takes at least two of these. */
const HOLD_MS = 4_000;

let cloud: Cloud;
let runtime: (FakeServer & { url: string }) | undefined;
const { startRun } = apiClient(() => cloud);

beforeAll(async () => {
  useFakeAwsCredentials();
  cloud = await startCloud({
    // Built per run (its context's provider): each case's run reaches that case's fake.
    provider: (m) =>
      Promise.resolve(
        new BedrockProvider(m.model.spec, MODEL_ID, resolveOptions({ ...GENERATE_PROVIDER_OPTIONS, endpointUrl: runtime?.url, region: 'us-east-1' })),
      ),
  });
}, 120_000);

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

afterAll(async () => {
  await cloud?.stop();
});

/** `count` messages of the generate queue, received 10 at most at a time (ReceiveMessage's limit) as the mapping's pollers gather a batch above 10. */
async function receiveBatch(count: number): Promise<Message[]> {
  const messages: Message[] = [];
  for (let tries = 0; messages.length < count && tries < 50; tries++) {
    const out = await cloud.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: cloud.queues.generate.url,
        MaxNumberOfMessages: Math.min(10, count - messages.length),
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
        VisibilityTimeout: 300,
      }),
    );
    messages.push(...(out.Messages ?? []));
  }
  return messages;
}

describe('a generate invocation of the deployed batch', () => {
  it.each([
    ['the default', DEFAULT_DEPLOYMENT.generateConcurrency],
    ['the largest batch (generateMaxConcurrency 300)', 300],
  ])(
    'at %s makes every model call of its batch at once and records every item',
    async (_label, setting) => {
      const { batchSize } = generateMapping(setting);
      runtime = (await startBedrockServer({ barrier: batchSize, holdMs: HOLD_MS, answer: () => '3' })) as FakeServer & { url: string };
      const runId = await startRun({ benchmark: 'sample/abricot', model: `bedrock:${MODEL_ID}`, limit: batchSize });
      await deliverOnce(cloud, 'plan', 1);

      const messages = await receiveBatch(batchSize);
      expect(messages).toHaveLength(batchSize);
      const event = toLambdaSqsEvent(messages, { queueArn: queueArnFromUrl(cloud.queues.generate.url, FAKE_AWS.region), region: FAKE_AWS.region });
      const started = Date.now();
      const response = await cloud.handlers.generate(event, lambdaContext('generate'));
      const elapsed = Date.now() - started;

      expect(response.batchItemFailures).toEqual([]);
      // Every call of the batch was in flight at once: the fake's barrier released them together.
      expect(runtime.maxInFlight()).toBe(batchSize);
      expect(runtime.requests).toHaveLength(batchSize);
      // One hold at most, not one per round of calls queued behind a smaller provider limit.
      expect(elapsed).toBeLessThan(2 * HOLD_MS);
      const run = await cloud.ledger.getRun(runId);
      expect(run?.recorded).toBe(batchSize);
      expect(run?.verdicts.SE ?? 0).toBe(0);
      // Lambda deletes what the batch response does not list (DeleteMessageBatch: 10 entries at most).
      for (let i = 0; i < messages.length; i += 10) {
        await applySqsBatchResponse({ client: cloud.sqs, queueUrl: cloud.queues.generate.url, messages: messages.slice(i, i + 10), outcome: response });
      }
    },
    120_000,
  );
});
