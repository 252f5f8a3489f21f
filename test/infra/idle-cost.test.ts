// The dry run's `fixed:` line (layers/app/cloud/idle-cost.ts) against the synthesized template:
// every resource that bills while the stack stands idle is counted in the template itself and
// must equal what the estimate prices, with and without the opt-in Fargate lane.
import { describe, expect, it } from 'vitest';
import { EXECUTOR_IMAGES } from '../../infra/languages.ts';
import { defaultIdleResources, idleMonthlyUsd, idleResourcesOfTemplate } from '../../layers/app/cloud/idle-cost.ts';
import { NO_BUNDLING, synthPolyeval } from './synth.ts';

function idleOf(overrides: Record<string, unknown>) {
  const { template } = synthPolyeval({ ...NO_BUNDLING, ...overrides });
  return idleResourcesOfTemplate(template.toJSON() as Parameters<typeof idleResourcesOfTemplate>[0]);
}

describe('the stack’s idle bill', () => {
  it('is what the dry run prices for the default stack (cdk.json context)', () => {
    const idle = idleOf({});
    expect(idle).toEqual(defaultIdleResources(false, EXECUTOR_IMAGES.length));
    expect(idle.interfaceEndpointAzs).toBe(0);
    expect(idle.natGateways).toBe(0);
    // Issue 35's target: ≤ $1 a month standing idle (docs/aws.md "Idle cost"). The work queues'
    // alarms are the watchdog's (its QUEUE_ALARMS names every one), not CloudWatch's.
    expect(idle.alarmMetrics).toBe(4);
    // The work queues, and each runner's answers queue for its dead letters only (no age metric).
    expect(idle.watchedQueues).toBe(3 + 2 * EXECUTOR_IMAGES.length);
    expect(idle.agedQueues).toBe(3 + EXECUTOR_IMAGES.length);
    expect(idle.watchdogTicks).toBe(2920);
    expect(idleMonthlyUsd(idle)).toBeLessThanOrEqual(1);
  }, 300_000);

  it('is what the dry run prices with -c fargateLane=true', () => {
    const idle = idleOf({ fargateLane: true });
    expect(idle).toEqual(defaultIdleResources(true, EXECUTOR_IMAGES.length));
    expect(idle.interfaceEndpointAzs).toBe(10);
    // The lane's queues are watched too; its step-scaling alarms (two 2-metric alarms per image) stay.
    expect(idle.watchedQueues).toBe(3 + 3 * EXECUTOR_IMAGES.length);
    expect(idle.agedQueues).toBe(3 + 2 * EXECUTOR_IMAGES.length);
    expect(idle.alarmMetrics).toBe(4 + 4 * EXECUTOR_IMAGES.length);
  }, 300_000);
});
