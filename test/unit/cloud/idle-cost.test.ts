// The idle-bill pricing (layers/app/cloud/idle-cost.ts) on a hand-written template: a math alarm
// bills each metric it reads, an interface endpoint each AZ it is in.
import { describe, expect, it } from 'vitest';
import { idleMonthlyUsd, idleResourcesOfTemplate } from '#app/cloud/idle-cost.ts';

const template = {
  Resources: {
    Plain: { Type: 'AWS::CloudWatch::Alarm', Properties: { MetricName: 'Errors', Namespace: 'AWS/Lambda' } },
    Math: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        Metrics: [
          { Id: 'a', MetricStat: {} },
          { Id: 'b', MetricStat: {} },
          { Id: 'expr', Expression: 'a+b' },
        ],
      },
    },
    Endpoint: { Type: 'AWS::EC2::VPCEndpoint', Properties: { VpcEndpointType: 'Interface', SubnetIds: ['s1', 's2'] } },
    Gateway: { Type: 'AWS::EC2::VPCEndpoint', Properties: { VpcEndpointType: 'Gateway' } },
    Key: { Type: 'AWS::KMS::Key' },
    Secret: { Type: 'AWS::SecretsManager::Secret' },
    Nat: { Type: 'AWS::EC2::NatGateway' },
    Board: { Type: 'AWS::CloudWatch::Dashboard' },
    Queue: { Type: 'AWS::SQS::Queue' },
  },
};

describe('idle cost of a template', () => {
  it('counts alarm metrics, endpoint AZs, keys, secrets, NAT gateways and dashboards', () => {
    expect(idleResourcesOfTemplate(template)).toEqual({ alarmMetrics: 3, interfaceEndpointAzs: 2, kmsKeys: 1, secrets: 1, natGateways: 1, dashboards: 1 });
  });

  it('prices them by the month at us-east-1 list prices', () => {
    // 3 × $0.10 + 2 × $0.01 × 730 + $1 + $0.40 + $0.045 × 730 + $3
    expect(idleMonthlyUsd(idleResourcesOfTemplate(template))).toBeCloseTo(0.3 + 14.6 + 1 + 0.4 + 32.85 + 3, 2);
    expect(idleMonthlyUsd({ alarmMetrics: 0, interfaceEndpointAzs: 0, kmsKeys: 0, secrets: 0, natGateways: 0, dashboards: 0 })).toBe(0);
  });
});
