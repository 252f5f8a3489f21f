/** The api function's dependencies: built once per container from its environment. */
import { AthenaClient } from '@aws-sdk/client-athena';
import type { ResultsQuery } from '#core/ports.ts';
import { AthenaResultsQuery, SqsWorkQueue } from '#aws/index.ts';
import { requireEnv } from '../shared/env.ts';
import { parseReadableS3, READABLE_S3_ENV } from '#app/cloud/readable-s3.ts';
import type { PlanMessage } from '#app/cloud/messages.ts';
import type { QueryDeps } from '#app/cloud/queries.ts';
import type { StartDeps } from '#app/cloud/start.ts';
import type { RedriveDeps } from '#app/cloud/run-control.ts';
import type { ReportLinkDeps } from '#app/cloud/report-link.ts';
import { parseRedrivePairs } from './redrive-queues.ts';
import { moveMessages } from '#aws/index.ts';
import { storageClients } from '../shared/aws-clients.ts';
import { createObservability, type Observability } from '../shared/observability.ts';

export interface ApiDeps extends StartDeps, QueryDeps, RedriveDeps, ReportLinkDeps {
  results: ResultsQuery;
  obs?: Observability;
}

export function createApiDeps(env: NodeJS.ProcessEnv = process.env): ApiDeps {
  const obs = createObservability('api');
  const { sqs, store, ledger } = storageClients(obs, env);
  const athena = obs.tracer.captureAWSv3Client(new AthenaClient({}));
  return {
    obs,
    store,
    ledger,
    planQueue: new SqsWorkQueue<PlanMessage>({ client: sqs, queueUrl: requireEnv('PLAN_QUEUE_URL', env) }),
    results: new AthenaResultsQuery({ client: athena, workGroup: requireEnv('ATHENA_WORKGROUP', env), database: requireEnv('GLUE_DATABASE', env) }),
    clock: () => new Date(),
    ...(env[READABLE_S3_ENV] ? { readableS3: parseReadableS3(env[READABLE_S3_ENV]) } : {}),
    // Signed with the api role's credentials: its read grant on reports/* is what the link can read.
    signedGetUrl: (key, seconds) => store.presignedGetUrl(key, seconds),
    pairs: parseRedrivePairs(requireEnv('REDRIVE_QUEUES', env)),
    // The api answers within 29 s: read at most 2000 messages per DLQ per request.
    // 1-s long polls (still every server's messages): the API answers within its 29-s timeout.
    move: (pair, select) => moveMessages({ client: sqs, from: pair.dlqUrl, to: pair.queueUrl, select, maxRead: 2000, waitSec: 1 }),
  };
}
