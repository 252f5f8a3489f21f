// The watchdog and the runners' asynchronous events in the cloud-scale simulation (the REAL
// watchRuns every 15 virtual minutes, over the simulated Lambda's AsyncEventsReceived: the
// signal the deployed watchdog reads from CloudWatch, layers/app/cloud/runner-events.ts). The
// judge hands each program to its runner asynchronously and deletes its SQS message; while the
// runner has no concurrency left, Lambda keeps the event and retries it (for up to 6 h:
// "How Lambda handles errors and retries with asynchronous invocation", read 2026-12-07), and
// the item is in no SQS queue. Here another run's work holds the runner's small reserved
// concurrency for 90 minutes, so the run's events wait three times the watchdog's stall window.
import { describe, expect, it } from 'vitest';
import { runSimulation } from '../../../sim/cloud/simulate.ts';

const HELD = { fromMs: 0, forMs: 90 * 60_000 };

describe('a run whose runner events wait in Lambda’s queue past the stall window', () => {
  it('is left open while the runner may hold them, and completes with nothing missing; closed early without the wait', async () => {
    const result = await runSimulation({ items: 100, runnerReserved: 2, runnerHeld: HELD });
    expect(result).toMatchObject({ items: 100, completed: 100, se: 0, missing: 0, dlq: 0 });
    expect(result.detail.status).toBe('completed');
    // Announced once, complete: never closed with its waiting items reported missing.
    expect(result.detail.completions).toEqual(['completed']);
    const handoff = result.detail.handoff as { async_retries: number; watchdog_waits: number };
    expect(handoff.async_retries).toBeGreaterThan(0);
    expect(handoff.watchdog_waits).toBeGreaterThan(0);
    expect(result.virtual_wall_s).toBeGreaterThan(HELD.forMs / 1000);

    // As before the fix: the watchdog saw the run stalled and every queue empty, and closed it with the waiting items missing.
    const before = await runSimulation({ items: 100, runnerReserved: 2, runnerHeld: HELD, without: ['runner-wait'] });
    expect((before.detail.completions as string[])[0]).toBe('completed_with_missing');
    expect(before.virtual_wall_s).toBeLessThan(HELD.forMs / 1000);
  }, 300_000);
});
