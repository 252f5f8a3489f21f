/** The aggregate function's dependencies: built once per container from its environment. */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { AggregateCloudDeps } from '#app/cloud/aggregate.ts';
import { requireEnv } from '../shared/env.ts';
import { EventBridgePublisher } from '#aws/index.ts';
import { writableCacheDir } from '../shared/runtime.ts';
import { storageClients } from '../shared/aws-clients.ts';
import { createObservability, type Observability } from '../shared/observability.ts';

export interface AggregateHandlerDeps extends AggregateCloudDeps {
  obs?: Observability;
}

export function createAggregateDeps(env: NodeJS.ProcessEnv = process.env): AggregateHandlerDeps {
  const obs = createObservability('aggregate');
  const { store, ledger } = storageClients(obs, env);
  const events = obs.tracer.captureAWSv3Client(new EventBridgeClient({}));
  return {
    obs,
    store,
    ledger,
    clock: () => new Date(),
    events: new EventBridgePublisher({ client: events, busName: requireEnv('EVENT_BUS_NAME', env) }),
    cacheDir: writableCacheDir(),
  };
}
