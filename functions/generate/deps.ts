/** The generate function's dependencies: built once per container from its environment. */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { returnLater } from '#aws/index.ts';
import { SqsWorkQueue } from '#aws/index.ts';
import { RunContextCache } from '#app/cloud/context.ts';
import { costOfManifest } from '#app/cloud/cost.ts';
import { queueUrlsByLanguage, requireEnv } from '../shared/env.ts';
import type { AggregateMessage, GeneratedMessage } from '#app/cloud/messages.ts';
import { createCloudProvider } from '#app/cloud/provider.ts';
import { GENERATE_PROVIDER_OPTIONS } from '#app/cloud/retry-budget.ts';
import type { GenerateDeps } from '#app/cloud/stages.ts';
import { storageClients } from '../shared/aws-clients.ts';
import { createObservability, type Observability } from '../shared/observability.ts';
import { providerEnv } from '../shared/provider-env.ts';

export interface GenerateHandlerDeps extends GenerateDeps {
  obs?: Observability;
  /** Hides a received message for `seconds` (a throttled item's back-off; layers/aws/sqs-visibility.ts). */
  returnLater?: (record: SQSRecord, seconds: number) => Promise<void>;
  /** Book the invocation's model calls in one ledger transaction (booking-batch.ts; default). false: each call's on its own, as before (the simulation's `--without batch-bookings`). */
  batchBookings?: boolean;
}

function queuesByLanguage(sqs: SQSClient, prefix: string, env: NodeJS.ProcessEnv): Record<string, SqsWorkQueue<GeneratedMessage>> {
  const urls = queueUrlsByLanguage(prefix, env);
  return Object.fromEntries(Object.entries(urls).map(([language, queueUrl]) => [language, new SqsWorkQueue<GeneratedMessage>({ client: sqs, queueUrl })]));
}

export function createGenerateDeps(env: NodeJS.ProcessEnv = process.env): GenerateHandlerDeps {
  const obs = createObservability('generate');
  const { sqs, store, ledger, parts } = storageClients(obs, env);
  const keysEnv = providerEnv({ env, ssm: () => import('@aws-sdk/client-ssm').then(({ SSMClient }) => obs.tracer.captureAWSv3Client(new SSMClient({}))) });
  return {
    obs,
    ledger,
    parts,
    contexts: new RunContextCache({
      store,
      ledger,
      clock: () => new Date(),
      // Retries end inside the function's timeout, so a batch is never generated (and paid) twice.
      // The API keys from the deployment's SSM path (PROVIDER_KEYS_PATH).
      provider: async (manifest) => createCloudProvider(manifest.model.spec, { ...GENERATE_PROVIDER_OPTIONS, env: await keysEnv() }, env),
      costOf: costOfManifest,
    }),
    aggregateQueue: new SqsWorkQueue<AggregateMessage>({ client: sqs, queueUrl: requireEnv('AGGREGATE_QUEUE_URL', env) }),
    executeQueues: queuesByLanguage(sqs, 'EXECUTE_QUEUE_URL_', env),
    fargateQueues: queuesByLanguage(sqs, 'EXECUTE_FARGATE_QUEUE_URL_', env),
    returnLater: (record, seconds) => returnLater(sqs, record, seconds),
  };
}
