/** The nightly function's dependencies: built once per container from its environment. */
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { SqsWorkQueue } from '#aws/index.ts';
import { HarnessError } from '#core/errors.ts';
import { requireEnv } from '../shared/env.ts';
import { parseReadableS3, READABLE_S3_ENV } from '#app/cloud/readable-s3.ts';
import type { PlanMessage } from '#app/cloud/messages.ts';
import type { NightlyDeps } from '#app/cloud/nightly.ts';
import { storageClients } from '../shared/aws-clients.ts';
import { createObservability, type Observability } from '../shared/observability.ts';

export interface NightlyHandlerDeps extends NightlyDeps {
  obs?: Observability;
}

export function createNightlyDeps(env: NodeJS.ProcessEnv = process.env): NightlyHandlerDeps {
  const obs = createObservability('nightly');
  const { sqs, ledger } = storageClients(obs, env);
  const ssm = obs.tracer.captureAWSv3Client(new SSMClient({}));
  return {
    obs,
    ledger,
    planQueue: new SqsWorkQueue<PlanMessage>({ client: sqs, queueUrl: requireEnv('PLAN_QUEUE_URL', env) }),
    clock: () => new Date(),
    ...(env[READABLE_S3_ENV] ? { readableS3: parseReadableS3(env[READABLE_S3_ENV]) } : {}),
    ...(env.NIGHTLY_PARAMETER_NAME ? { defaultParameterName: env.NIGHTLY_PARAMETER_NAME } : {}),
    readParameter: async (name) => {
      const out = await ssm.send(new GetParameterCommand({ Name: name }));
      const value = out.Parameter?.Value;
      if (value === undefined) throw new HarnessError(`SSM parameter ${name} has no value`);
      return value;
    },
  };
}
