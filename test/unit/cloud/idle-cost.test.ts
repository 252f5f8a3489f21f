// The idle-bill pricing (layers/app/cloud/idle-cost.ts) on a hand-written template: a math alarm
// bills each metric it reads, an interface endpoint each AZ it is in, the watchdog each tick of its
// rate schedule with two GetQueueAttributes per queue whose alarms it keeps.
import { describe, expect, it } from 'vitest';
import { idleMonthlyUsd, idleResourcesOfTemplate, scheduledMonthlyUsd, tickUsd } from '#app/cloud/idle-cost.ts';

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
    Ticks: { Type: 'AWS::Scheduler::Schedule', Properties: { ScheduleExpression: 'rate(15 minutes)', Target: { Arn: { 'Fn::GetAtt': ['Watchdog', 'Arn'] } } } },
    BatchTicks: {
      Type: 'AWS::Scheduler::Schedule',
      Properties: { ScheduleExpression: 'rate(5 minutes)', Target: { Arn: { 'Fn::GetAtt': ['Batch', 'Arn'] } } },
    },
    Nightly: { Type: 'AWS::Scheduler::Schedule', Properties: { ScheduleExpression: 'cron(0 3 * * ? *)', Target: { Arn: { 'Fn::GetAtt': ['Batch', 'Arn'] } } } },
    Watchdog: {
      Type: 'AWS::Lambda::Function',
      Properties: { MemorySize: 512, Environment: { Variables: { QUEUE_ALARMS: 'plan=1800,generate=21600,answers-python=-' } } },
    },
    Batch: { Type: 'AWS::Lambda::Function', Properties: { MemorySize: 1024, Environment: { Variables: { TABLE_NAME: 't' } } } },
  },
};

describe('idle cost of a template', () => {
  it('counts alarm metrics, endpoint AZs, keys, secrets, NAT gateways, dashboards and the watchdog’s ticks and queues', () => {
    expect(idleResourcesOfTemplate(template)).toEqual({
      alarmMetrics: 3,
      interfaceEndpointAzs: 2,
      kmsKeys: 1,
      secrets: 1,
      natGateways: 1,
      dashboards: 1,
      // 2,920 watchdog ticks (15 min) + 8,760 batch ticks (5 min); the cron schedule starts runs, it is no idle tick.
      scheduledTicks: 11_680,
      scheduledGbTicks: 2920 * 0.5 + 8760 * 1,
      watchdogTicks: 2920,
      // answers-python=-: watched for dead letters, no age alarm.
      watchedQueues: 3,
      agedQueues: 2,
    });
  });

  it('prices a scheduled tick from its parts', () => {
    // Scheduler $1/M + Lambda request $0.20/M + 1.5 s × 0.5 GB × $0.0000133334 (arm64) + X-Ray $5/M
    // + 2 read units × $0.125/M (on demand since 2024-11-01, layers/providers/aws-prices.ts) + 1 KiB of logs at $0.50/GB; the watchdog's 2 × 8 GetQueueAttributes × $0.40/M
    // and 8 metrics of GetMetricData (the queues' oldest-message ages) × $0.01 per 1,000.
    const byHand = 1e-6 + 0.2e-6 + 1.5 * 0.5 * 0.0000133334 + 5e-6 + 2 * 0.125e-6 + (1024 / 1024 ** 3) * 0.5;
    expect(tickUsd(0.5)).toBeCloseTo(byHand, 10);
    const watchdogMonth = { scheduledTicks: 2920, scheduledGbTicks: 2920 * 0.5, watchdogTicks: 2920, watchedQueues: 8, agedQueues: 8 };
    expect(scheduledMonthlyUsd(watchdogMonth)).toBeCloseTo(2920 * (byHand + 16 * 0.4e-6 + 8 * 0.01e-3), 8);
    // A month of watchdog ticks watching 8 queues: ~30 cents, 23 of them the age metrics.
    expect(scheduledMonthlyUsd(watchdogMonth)).toBeCloseTo(0.302, 3);
    // A queue watched for dead letters only (an answers queue) adds its two reads a tick, no metric: under a cent a month.
    const withAnswers = { ...watchdogMonth, watchedQueues: 11 };
    expect(scheduledMonthlyUsd(withAnswers) - scheduledMonthlyUsd(watchdogMonth)).toBeCloseTo(2920 * 3 * 2 * 0.4e-6, 10);
  });

  it('prices them by the month at us-east-1 list prices', () => {
    // 3 × $0.10 + 2 × $0.01 × 730 + $1 + $0.40 + $0.045 × 730 + $3 + the ticks (3 queues watched, 2 of them for age)
    const ticks = 2920 * tickUsd(0.5) + 8760 * tickUsd(1) + 2920 * (3 * 2 * 0.4e-6 + 2 * 0.01e-3);
    expect(idleMonthlyUsd(idleResourcesOfTemplate(template))).toBeCloseTo(0.3 + 14.6 + 1 + 0.4 + 32.85 + 3 + ticks, 2);
    const none = { alarmMetrics: 0, interfaceEndpointAzs: 0, kmsKeys: 0, secrets: 0, natGateways: 0, dashboards: 0 };
    expect(idleMonthlyUsd({ ...none, scheduledTicks: 0, scheduledGbTicks: 0, watchdogTicks: 0, watchedQueues: 0, agedQueues: 0 })).toBe(0);
  });
});
