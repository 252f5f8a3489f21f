// generate's batch in the simulated deployment (sim/cloud, the real stage handlers under AWS's
// limits): the calls in flight the default configures (generateMaxConcurrency 5: 25) taken as
// 2 invocations of 12 instead of 5 of 5. Each invocation bills the wait for its slowest call once,
// so generate's GB-seconds per item fall; the model never sees more calls at once than configured;
// every item is recorded once with its verdict, no SE, nothing missing.
import { describe, expect, it } from 'vitest';
import { runSimulation } from '../../../sim/cloud/simulate.ts';
import { GENERATE_CALLS_PER_SETTING } from '#app/cloud/generate-mapping.ts';

const ITEMS = 1000;
const CONFIGURED_CALLS = 5 * GENERATE_CALLS_PER_SETTING;

type Result = Awaited<ReturnType<typeof runSimulation>>;
const generateGbSPerItem = (r: Result): number => ((r.detail.gb_s as Record<string, number>)['generate'] ?? NaN) / ITEMS;
const invocations = (r: Result): number => (r.detail.invocations as Record<string, number>)['generate'] ?? NaN;

describe("generate's batch in the simulated deployment", () => {
  it('bills generate under half the GB-seconds per item at the same calls in flight, with 0 SE and nothing missing', async () => {
    const batched = await runSimulation({ items: ITEMS });
    const before = await runSimulation({ items: ITEMS, without: ['generate-batch'] });
    for (const result of [batched, before]) {
      expect(result).toMatchObject({ items: ITEMS, completed: ITEMS, se: 0, missing: 0, dlq: 0 });
      expect(result.detail.verdicts).toEqual(result.detail.expected);
      // The model saw at most the calls in flight the user configured.
      expect(result.detail.peak_model_calls).toBeLessThanOrEqual(CONFIGURED_CALLS);
      expect(result.detail.model_throttles).toBe(0);
    }
    expect(before.detail.generate_mapping).toMatchObject({ batchSize: 5, maxConcurrency: 5, callsInFlight: 25 });
    expect(batched.detail.generate_mapping).toMatchObject({ batchSize: 12, maxBatchingWindowS: 1, maxConcurrency: 2, callsInFlight: 24 });
    // Both runs kept the model about as busy: the batched one lost at most the one call its batches cannot hold.
    expect(batched.detail.peak_model_calls).toBeGreaterThanOrEqual(CONFIGURED_CALLS - 1 - 2);
    expect((batched.detail.peak as Record<string, number>)['generate']).toBeLessThanOrEqual(2);
    // One wait billed for 12 items instead of 5: the slowest of 12 calls (~1.42 × the mean) against the slowest of 5 (~1.33 ×).
    expect(invocations(batched)).toBeLessThan(invocations(before) / 2);
    expect(generateGbSPerItem(batched)).toBeLessThan(generateGbSPerItem(before) / 2);
    // At the same calls in flight the run takes about as long.
    expect(batched.virtual_wall_s).toBeLessThanOrEqual(before.virtual_wall_s * 1.15);
  }, 300_000);
});
