/** The plan function's dependencies: built once per container from its environment. */
import { SqsWorkQueue } from '#aws/index.ts';
import type { WorkItem } from '#core/run/index.ts';
import { requireEnv } from '../shared/env.ts';
import { dynamoSetRunItems } from '#aws/index.ts';
import type { PlanMessage } from '#app/cloud/messages.ts';
import type { PlanDeps } from '#app/cloud/plan.ts';
import { createCloudProvider } from '#app/cloud/provider.ts';
import { cloudBatchMinRecords, quotasFromEnv } from '#app/cloud/batch-clients.ts';
import { cloudCodeVersion, cloudPackageRoot, packageVersions, writableCacheDir } from '../shared/runtime.ts';
import { storageClients } from '../shared/aws-clients.ts';
import { createObservability, type Observability } from '../shared/observability.ts';

export interface PlanHandlerDeps extends PlanDeps {
  obs?: Observability;
}

export function createPlanDeps(env: NodeJS.ProcessEnv = process.env): PlanHandlerDeps {
  const obs = createObservability('plan');
  const { sqs, dynamo, store, ledger, tableName } = storageClients(obs, env);
  const root = cloudPackageRoot(env);
  return {
    obs,
    store,
    ledger,
    setItems: dynamoSetRunItems(dynamo, tableName),
    planQueue: new SqsWorkQueue<PlanMessage>({ client: sqs, queueUrl: requireEnv('PLAN_QUEUE_URL', env) }),
    generateQueue: new SqsWorkQueue<WorkItem>({ client: sqs, queueUrl: requireEnv('GENERATE_QUEUE_URL', env) }),
    load: { packageRoot: root, cacheDir: writableCacheDir(), env },
    createProvider: (spec) => createCloudProvider(spec, {}, env),
    code: cloudCodeVersion(root, env),
    packages: packageVersions(root),
    batchMinRecords: (spec) => cloudBatchMinRecords(spec, quotasFromEnv(env)),
  };
}
