/**
 * What a deployed stack bills standing idle, by the month: the resources CloudFormation creates
 * that are charged while they exist, whether or not a run goes. The dry run's `fixed:` line
 * prices the deployment's counts ({@link idleMonthlyUsd}); the infra tests count the same
 * resources in the synthesized template ({@link idleResourcesOfTemplate}) and check the counts
 * the estimate assumes ({@link defaultIdleResources}), so the line cannot drift from the stack.
 *
 * Prices (us-east-1, read 2026-12-06; no free tier counted, since an account's other resources
 * may already use it):
 * - CloudWatch alarms, https://aws.amazon.com/cloudwatch/pricing/ : $0.10 per alarm metric and
 *   month at standard resolution. The unit is the alarm *metric*: an alarm on a metric math
 *   expression bills each metric the expression reads, so merging alarms into one expression
 *   saves nothing.
 * - AWS PrivateLink, https://aws.amazon.com/privatelink/pricing/ : an interface endpoint bills
 *   $0.01 per AZ and hour ({@link AWS_PRICES}.interfaceEndpointAzHour).
 * - AWS KMS, https://aws.amazon.com/kms/pricing/ : $1 per customer managed key and month.
 * - AWS Secrets Manager, https://aws.amazon.com/secrets-manager/pricing/ : $0.40 per secret and month.
 * - Amazon VPC, https://aws.amazon.com/vpc/pricing/ : a NAT gateway bills $0.045 per hour.
 * - CloudWatch dashboards (same page): $3 per dashboard and month.
 * Two functions run on a rate whether or not a run goes — the run watchdog every 15 minutes (it
 * also keeps the work queues' alarms: layers/app/cloud/queue-alarms.ts) and the batch stage every
 * 5 minutes — so their ticks are priced too ({@link tickUsd}):
 * - Amazon EventBridge Scheduler, https://aws.amazon.com/eventbridge/pricing/ (read 2026-12-06
 *   through cloudburn.io's March 2026 summary of it): $1.00 per million invocations.
 * - AWS Lambda ({@link AWS_PRICES}): a request, and {@link TICK_BILLED_SECONDS} at the function's
 *   memory, arm64 (an assumption: an idle tick is a `listRuns` query, and for the watchdog the
 *   alarm state and two GetQueueAttributes per queue, in parallel; often a cold start, whose init
 *   Lambda bills since August 2025).
 * - AWS X-Ray, https://aws.amazon.com/xray/pricing/ (read 2026-12-06): $5.00 per million traces
 *   recorded (the functions trace actively: one trace per tick).
 * - DynamoDB on demand ({@link AWS_PRICES}.dynamoReadUnit): two read units a tick.
 * - CloudWatch Logs ingestion, https://aws.amazon.com/cloudwatch/pricing/ : $0.50 per GB; ~1 KB a tick.
 * - Amazon SQS ({@link AWS_PRICES}.sqsRequest): each watchdog tick, one GetQueueAttributes per work
 *   queue and per DLQ.
 * - CloudWatch GetMetricData, https://aws.amazon.com/cloudwatch/pricing/ ($0.01 per 1,000 metrics
 *   requested; not in the free tier, unlike GetMetricStatistics — AWS knowledge center
 *   "cloudwatch-getmetricdata-api", read 2026-12-06): each watchdog tick, one metric per work queue
 *   (its `ApproximateAgeOfOldestMessage`, the age alarm): 8 queues × 2,920 ticks ≈ $0.23 a month. The
 *   runners' answers queues are watched for dead letters only (two GetQueueAttributes a tick, no metric).
 * Not counted (billed by use, not by existence): S3 and DynamoDB storage, log storage, the other
 * functions, SQS requests of runs — but see docs/aws.md "Idle cost" on the empty receives of
 * Lambda's SQS pollers.
 */
import { AWS_PRICES } from '#providers/index.ts';

/** Idle prices, USD (see the sources above). */
export const IDLE_PRICES = {
  alarmMetricMonth: 0.1,
  interfaceEndpointAzHour: AWS_PRICES.interfaceEndpointAzHour,
  kmsKeyMonth: 1,
  secretMonth: 0.4,
  natGatewayHour: 0.045,
  dashboardMonth: 3,
  schedulerInvocation: 1 / 1e6,
  xrayTrace: 5 / 1e6,
  logGb: 0.5,
  metricRequested: 0.01 / 1000,
} as const;

const HOURS_PER_MONTH = 730;

/** Billed seconds of one scheduled tick (an assumption, see above). */
export const TICK_BILLED_SECONDS = 1.5;
/** Log bytes one tick writes (START/END/REPORT lines and the platform report). */
const TICK_LOG_BYTES = 1024;
/** Ticks a month at the watchdog's 15-minute rate (infra/watchdog.ts WATCHDOG_RATE). */
export const WATCHDOG_TICKS_PER_MONTH = (HOURS_PER_MONTH * 60) / 15;
/** Ticks a month at the batch stage's 5-minute rate (infra/batch.ts BATCH_RATE). */
export const BATCH_TICKS_PER_MONTH = (HOURS_PER_MONTH * 60) / 5;

/** What one scheduled tick of a function with `memoryGb` bills, USD (SQS reads apart). */
export function tickUsd(memoryGb: number): number {
  const p = IDLE_PRICES;
  return (
    p.schedulerInvocation +
    AWS_PRICES.lambdaRequest +
    TICK_BILLED_SECONDS * memoryGb * AWS_PRICES.lambdaGbSecond.arm64 +
    p.xrayTrace +
    2 * AWS_PRICES.dynamoReadUnit +
    (TICK_LOG_BYTES / 1024 ** 3) * p.logGb
  );
}

/** The resources of a stack that bill while idle. */
export interface IdleResources {
  /** Interface endpoints × the AZs each is in (each AZ bills its own hours). */
  interfaceEndpointAzs: number;
  /** Metrics read by CloudWatch alarms (one per plain alarm; one per metric in a math alarm). */
  alarmMetrics: number;
  kmsKeys: number;
  secrets: number;
  natGateways: number;
  dashboards: number;
  /** Ticks a month of every rate schedule (the watchdog's and the batch stage's). */
  scheduledTicks: number;
  /** Σ ticks × the ticked function's memory, GB (what their billed seconds are multiplied by). */
  scheduledGbTicks: number;
  /** Ticks a month of the watchdog, which reads each watched queue and its DLQ every tick. */
  watchdogTicks: number;
  /** Queues whose alarms the watchdog keeps (each tick: two GetQueueAttributes per queue, the queue's and its DLQ's). */
  watchedQueues: number;
  /** Those of them with an age alarm (each tick: one metric of GetMetricData per queue); the runners' answers queues have none. */
  agedQueues: number;
}

/** What the scheduled ticks bill in a month, USD (unrounded). */
export function scheduledMonthlyUsd(r: Pick<IdleResources, 'scheduledTicks' | 'scheduledGbTicks' | 'watchdogTicks' | 'watchedQueues' | 'agedQueues'>): number {
  return (
    r.scheduledTicks * tickUsd(0) +
    r.scheduledGbTicks * TICK_BILLED_SECONDS * AWS_PRICES.lambdaGbSecond.arm64 +
    r.watchdogTicks * (r.watchedQueues * 2 * AWS_PRICES.sqsRequest + r.agedQueues * IDLE_PRICES.metricRequested)
  );
}

/** The month's bill of `r`, USD, rounded to the cent. */
export function idleMonthlyUsd(r: IdleResources): number {
  const p = IDLE_PRICES;
  const usd =
    r.interfaceEndpointAzs * p.interfaceEndpointAzHour * HOURS_PER_MONTH +
    r.natGateways * p.natGatewayHour * HOURS_PER_MONTH +
    r.alarmMetrics * p.alarmMetricMonth +
    r.kmsKeys * p.kmsKeyMonth +
    r.secrets * p.secretMonth +
    r.dashboards * p.dashboardMonth +
    scheduledMonthlyUsd(r);
  return Math.round(usd * 100) / 100;
}

/**
 * CloudWatch alarm metrics of the default stack (infra/): the error alarms of the nightly, batch
 * and watchdog functions, and the watchdog's missing-ticks alarm. The work queues' DLQ-depth and
 * age alarms are kept by the watchdog (queue-alarms.ts), not CloudWatch. The opt-in Fargate lane
 * adds per image its step-scaling policy's two alarms on a two-metric expression (visible + in
 * flight). test/infra/idle-cost.test.ts counts them in the template.
 */
export function alarmMetrics(fargateLane: boolean, images: number): number {
  const base = 4;
  return fargateLane ? base + images * 2 * 2 : base;
}

/** Work queues of the stack: plan, generate, aggregate, one per executor image, and one per image on the Fargate lane. */
export function workQueues(fargateLane: boolean, images: number): number {
  return 3 + images + (fargateLane ? images : 0);
}

/** What the stack deploys with `images` executor images, with or without the Fargate lane (infra/network.ts: 5 endpoints × 2 AZs). */
export function defaultIdleResources(fargateLane: boolean, images: number): IdleResources {
  return {
    interfaceEndpointAzs: fargateLane ? 5 * 2 : 0,
    alarmMetrics: alarmMetrics(fargateLane, images),
    kmsKeys: 0,
    secrets: 0,
    natGateways: 0,
    dashboards: 0,
    // The watchdog at 512 MB (infra/watchdog.ts), the batch stage at 1024 MB (infra/batch.ts).
    scheduledTicks: WATCHDOG_TICKS_PER_MONTH + BATCH_TICKS_PER_MONTH,
    scheduledGbTicks: WATCHDOG_TICKS_PER_MONTH * 0.5 + BATCH_TICKS_PER_MONTH * 1,
    watchdogTicks: WATCHDOG_TICKS_PER_MONTH,
    // The work queues, and each Lambda runner's answers queue (its DLQ alarm only).
    watchedQueues: workQueues(fargateLane, images) + images,
    agedQueues: workQueues(fargateLane, images),
  };
}

/** Ticks a month of an EventBridge Scheduler `rate(…)` expression; 0 for `cron(…)`/`at(…)` ones (they run a run, not an idle tick). */
function ticksOfRate(expression: unknown): number {
  const m = typeof expression === 'string' ? /^rate\((\d+) (minute|minutes|hour|hours)\)$/.exec(expression) : null;
  if (!m) return 0;
  const minutes = Number(m[1]) * (m[2]?.startsWith('hour') ? 60 : 1);
  return (HOURS_PER_MONTH * 60) / minutes;
}

type CfnResource = { Type: string; Properties?: Record<string, unknown> };

/** Counts the idle-billing resources of a synthesized CloudFormation template. */
export function idleResourcesOfTemplate(template: { Resources: Record<string, CfnResource> }): IdleResources {
  const r: IdleResources = {
    interfaceEndpointAzs: 0,
    alarmMetrics: 0,
    kmsKeys: 0,
    secrets: 0,
    natGateways: 0,
    dashboards: 0,
    scheduledTicks: 0,
    scheduledGbTicks: 0,
    watchdogTicks: 0,
    watchedQueues: 0,
    agedQueues: 0,
  };
  const resources = template.Resources;
  /** The function a schedule invokes (its target `Fn::GetAtt [id, Arn]`). */
  const targetOf = (props: Record<string, unknown>): CfnResource | undefined => {
    const arn = (props['Target'] as { Arn?: { 'Fn::GetAtt'?: unknown[] } } | undefined)?.Arn?.['Fn::GetAtt']?.[0];
    return typeof arn === 'string' ? resources[arn] : undefined;
  };
  const queueAlarmsOf = (fn: CfnResource | undefined): unknown =>
    (fn?.Properties?.['Environment'] as { Variables?: Record<string, unknown> } | undefined)?.Variables?.['QUEUE_ALARMS'];
  for (const res of Object.values(resources)) {
    const props = res.Properties ?? {};
    switch (res.Type) {
      case 'AWS::EC2::VPCEndpoint':
        if (props['VpcEndpointType'] === 'Interface') r.interfaceEndpointAzs += ((props['SubnetIds'] as unknown[] | undefined) ?? []).length;
        break;
      case 'AWS::CloudWatch::Alarm': {
        const metrics = props['Metrics'] as { MetricStat?: unknown }[] | undefined;
        r.alarmMetrics += metrics === undefined ? 1 : metrics.filter((m) => m.MetricStat !== undefined).length;
        break;
      }
      case 'AWS::KMS::Key':
        r.kmsKeys += 1;
        break;
      case 'AWS::SecretsManager::Secret':
        r.secrets += 1;
        break;
      case 'AWS::EC2::NatGateway':
        r.natGateways += 1;
        break;
      case 'AWS::CloudWatch::Dashboard':
        r.dashboards += 1;
        break;
      case 'AWS::Scheduler::Schedule': {
        const ticks = ticksOfRate(props['ScheduleExpression']);
        const fn = targetOf(props);
        r.scheduledTicks += ticks;
        r.scheduledGbTicks += ticks * (Number(fn?.Properties?.['MemorySize'] ?? 128) / 1024);
        if (queueAlarmsOf(fn) !== undefined) r.watchdogTicks += ticks;
        break;
      }
      case 'AWS::Lambda::Function': {
        // The watchdog's QUEUE_ALARMS: name=maxAgeSeconds per queue whose alarms it keeps (name=-: no age alarm).
        const spec = queueAlarmsOf(res);
        if (typeof spec === 'string') {
          const pairs = spec.split(',').filter(Boolean);
          r.watchedQueues += pairs.length;
          r.agedQueues += pairs.filter((pair) => !pair.endsWith('=-')).length;
        }
        break;
      }
      default:
        break;
    }
  }
  return r;
}
