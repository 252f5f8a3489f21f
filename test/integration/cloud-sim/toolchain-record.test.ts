// The simulator runs the real execute handler with the deployed judge's toolchain recorder
// (layers/app/cloud/toolchain-record.ts): the run's one language is recorded once and read by the
// aggregate, and the S3 PUTs stay one an item (issue 35 counts them).
import { describe, expect, it } from 'vitest';
import { runSimulation } from '../../../sim/cloud/simulate.ts';

describe('toolchain records in the cloud-scale simulation', () => {
  it("records the run's language once: the aggregate reads one record, and the PUTs stay one an item", async () => {
    const result = await runSimulation({ items: 300 });

    expect(result).toMatchObject({ items: 300, completed: 300, se: 0, missing: 0, dlq: 0 });
    const gets = result.detail.s3_get_by_prefix as Record<string, number>;
    expect(gets['runs/*/toolchains/']).toBe(1);
    const puts = (result.detail.requests as { s3_put: { count: number } }).s3_put.count;
    // Item documents and records parts, plus a handful a run (manifest, snapshot, summary, report, toolchain record and its kept copy…).
    expect(puts - 300).toBeGreaterThan(0);
    expect(puts - 300).toBeLessThan(40);
  }, 300_000);
});
