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
 * Not counted (billed by use, not by existence): S3 and DynamoDB storage, log storage, Lambda,
 * SQS requests — but see docs/aws.md "Idle cost" on the empty receives of Lambda's SQS pollers.
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
} as const;

const HOURS_PER_MONTH = 730;

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
    r.dashboards * p.dashboardMonth;
  return Math.round(usd * 100) / 100;
}

/**
 * CloudWatch alarm metrics of the default stack (infra/): per work queue a DLQ-depth and an
 * oldest-age alarm (plan, generate, aggregate and one Lambda queue per executor image: 8 queues),
 * and the error alarms of the nightly, batch and watchdog functions. The opt-in Fargate lane adds
 * per image a work queue's two alarms and its step-scaling policy's two alarms on a two-metric
 * expression (visible + in flight). test/infra/idle-cost.test.ts counts them in the template.
 */
export function alarmMetrics(fargateLane: boolean, images: number): number {
  const stageQueues = 3;
  const base = (stageQueues + images) * 2 + 3;
  return fargateLane ? base + images * (2 + 2 * 2) : base;
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
  };
}

type CfnResource = { Type: string; Properties?: Record<string, unknown> };

/** Counts the idle-billing resources of a synthesized CloudFormation template. */
export function idleResourcesOfTemplate(template: { Resources: Record<string, CfnResource> }): IdleResources {
  const r: IdleResources = { interfaceEndpointAzs: 0, alarmMetrics: 0, kmsKeys: 0, secrets: 0, natGateways: 0, dashboards: 0 };
  for (const res of Object.values(template.Resources)) {
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
      default:
        break;
    }
  }
  return r;
}
