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
    // The target is ≤ $1; alarms alone are $0.10 per alarm metric (docs/aws.md "Idle cost").
    expect(idleMonthlyUsd(idle)).toBe(Math.round(idle.alarmMetrics * 10) / 100);
  }, 300_000);

  it('is what the dry run prices with -c fargateLane=true', () => {
    const idle = idleOf({ fargateLane: true });
    expect(idle).toEqual(defaultIdleResources(true, EXECUTOR_IMAGES.length));
    expect(idle.interfaceEndpointAzs).toBe(10);
  }, 300_000);
});
