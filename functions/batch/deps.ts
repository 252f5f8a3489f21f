/** The batch stage's dependencies: built once per container from its environment. */
import type { BedrockClient } from '@aws-sdk/client-bedrock';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { SqsWorkQueue } from '#aws/index.ts';
import type { BatchStageDeps } from '#app/cloud/batch.ts';
import { createCloudBatchClient, quotasFromEnv } from '#app/cloud/batch-clients.ts';
import { RunContextCache } from '#app/cloud/context.ts';
import { costOfManifest } from '#app/cloud/cost.ts';
import type { AggregateMessage, GeneratedMessage } from '#app/cloud/messages.ts';
import { cloudKeyHosts, createCloudProvider } from '#app/cloud/provider.ts';
import { queueUrlsByLanguage, requireEnv } from '../shared/env.ts';
import { storageClients } from '../shared/aws-clients.ts';
import { createObservability, type Observability } from '../shared/observability.ts';
import { providerEnv, withKeysHint } from '../shared/provider-env.ts';

export interface BatchHandlerDeps extends BatchStageDeps {
  obs?: Observability;
}

function queuesByLanguage(sqs: SQSClient, prefix: string, env: NodeJS.ProcessEnv): Record<string, SqsWorkQueue<GeneratedMessage>> {
  const urls = queueUrlsByLanguage(prefix, env);
  return Object.fromEntries(Object.entries(urls).map(([language, queueUrl]) => [language, new SqsWorkQueue<GeneratedMessage>({ client: sqs, queueUrl })]));
}

export function createBatchDeps(env: NodeJS.ProcessEnv = process.env): BatchHandlerDeps {
  const obs = createObservability('batch');
  const { sqs, store, ledger, parts } = storageClients(obs, env);
  const clock = (): Date => new Date();
  const quotas = quotasFromEnv(env);
  // The Bedrock control-plane SDK loads on the first Bedrock run only.
  let control: Promise<BedrockClient> | undefined;
  const bedrockClient = (): Promise<BedrockClient> =>
    (control ??= import('@aws-sdk/client-bedrock').then(({ BedrockClient }) => obs.tracer.captureAWSv3Client(new BedrockClient({}))));
  // The OpenAI and Anthropic keys from the deployment's SSM path (PROVIDER_KEYS_PATH), as generate reads them.
  const keysEnv = providerEnv({ env, ssm: () => import('@aws-sdk/client-ssm').then(({ SSMClient }) => obs.tracer.captureAWSv3Client(new SSMClient({}))) });
  const timeout = env.BATCH_TIMEOUT_HOURS ? Number(env.BATCH_TIMEOUT_HOURS) : undefined;
  return {
    obs,
    store,
    ledger,
    parts,
    clock,
    // The provider is only the run's identity here (prices, capabilities): the batch client makes the calls.
    contexts: new RunContextCache({ store, ledger, clock, provider: (manifest) => createCloudProvider(manifest.model.spec, {}, env), costOf: costOfManifest }),
    client: async (manifest) =>
      createCloudBatchClient(manifest.model.spec, {
        store,
        bedrockRoleArn: requireEnv('BATCH_ROLE_ARN', env),
        bedrockControl: bedrockClient,
        quotas,
        ...(timeout !== undefined ? { timeoutHours: timeout } : {}),
        providerOptions: { env: await keysEnv(), keyHosts: cloudKeyHosts(env) },
      }).catch((error: unknown) => {
        throw withKeysHint(error, env);
      }),
    aggregateQueue: new SqsWorkQueue<AggregateMessage>({ client: sqs, queueUrl: requireEnv('AGGREGATE_QUEUE_URL', env) }),
    executeQueues: queuesByLanguage(sqs, 'EXECUTE_QUEUE_URL_', env),
    fargateQueues: queuesByLanguage(sqs, 'EXECUTE_FARGATE_QUEUE_URL_', env),
  };
}
