/** The simulation's one-line answer and how it names what held the run back. */
import type { DynamoLimits } from './limits/dynamodb.ts';
import type { S3PrefixRates } from './limits/s3-prefix.ts';
import type { SimLambda } from './sim-lambda.ts';

export interface SimResult {
  items: number;
  completed: number;
  se: number;
  missing: number;
  dlq: number;
  virtual_wall_s: number;
  lambda_gb_s: number;
  cost_usd: number;
  bottleneck: string;
  /** Not printed on stdout: the figures behind the line (stderr with --detail). */
  detail: Record<string, unknown>;
}

/** The first failure a run met, else the limit its throughput ran into. */
export function bottleneckOf(s: {
  lambda: SimLambda;
  dynamo: DynamoLimits;
  s3: S3PrefixRates;
  dlq: number;
  se: number;
  missing: number;
  /** Messages SQS deleted past their retention period. */
  expired?: number;
  status: string;
  generateMaxConcurrency: number;
  /** generate's mapping as deployed (generate-mapping.ts): invocations × batch. */
  generateMapping: { maxConcurrency: number; batchSize: number };
  /** Transient invoke errors recorded as SE (`--without transient-redelivery`): SE comes from the runner first. */
  transientAsSe?: boolean;
  /** Model calls booked beyond one per recorded item (a redelivered message's call booked again). */
  overbookedCalls?: number;
  /** The model's quota: attempts it refused (ThrottlingException), as `<rpm>, <tpm>`. */
  quota?: { throttled: number; describe: string; model: string };
}): string {
  const { stats } = s.lambda;
  if (stats.recursionDropped > 0) return `recursion detection dropped ${stats.recursionDropped} message(s) (plan chain)`;
  const throttled = Object.entries(stats.throttles).filter(([, n]) => n > 0);
  const runnerSe = `runner not invocable (inactive or throttled: ${JSON.stringify(Object.fromEntries(throttled))}) recorded as SE`;
  if (s.se > 0 && s.transientAsSe) return runnerSe;
  const quota = s.quota && s.quota.throttled > 0 ? `model quota of ${s.quota.model} (${s.quota.describe}): ${s.quota.throttled} call(s) throttled` : undefined;
  if (s.se > 0 && quota) return `${quota}, throttled items recorded as SE`;
  if (s.se > 0 && s.dynamo.conflicts > 0) return `TransactionConflict: ${s.dynamo.conflicts} conflicting write(s) on the ledger's rows`;
  if (s.se > 0) return runnerSe;
  if (s.missing > 0 && (s.expired ?? 0) > 0)
    return `SQS retention: ${s.expired} message(s) older than their queue's 4 days deleted; ${s.missing} item(s) never recorded`;
  if (s.missing > 0) return `${s.missing} item(s) never recorded (status ${s.status}, ${s.dlq} in DLQs)`;
  if (quota) return `${quota}, each back in its queue until the quota let it through`;
  if ((s.overbookedCalls ?? 0) > 0) return `model cost booked twice: ${s.overbookedCalls} call(s) booked beyond one per recorded item`;
  if (s.dynamo.throttles > 0) return `DynamoDB partition throughput (${s.dynamo.throttles} throttled requests)`;
  if (s.s3.slowDowns > 0) return `S3 prefix request rate (${s.s3.slowDowns} Slow Down answers)`;
  // A runner's 429 reaches a judge that has started (and bills) waiting for it: the item goes back for a second judge.
  const runners = throttled.filter(([fn]) => fn.startsWith('runner-'));
  if (runners.length > 0)
    return `runners throttled: ${runners.reduce((sum, [, n]) => sum + n, 0)} synchronous invoke(s) from judges answered 429 (TooManyRequestsException) ${JSON.stringify(Object.fromEntries(runners))}`;
  if (throttled.length > 0) return `Lambda concurrency: throttled ${JSON.stringify(Object.fromEntries(throttled))}`;
  return `generate maxConcurrency ${s.generateMapping.maxConcurrency} × batch ${s.generateMapping.batchSize} model calls in flight (generateMaxConcurrency ${s.generateMaxConcurrency}; peak ${stats.peak.generate ?? 0} invocations)`;
}
