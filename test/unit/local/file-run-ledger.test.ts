import { appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileRunLedger } from '#local/index.ts';

const run = { runId: 'r/1', benchmark: 'abricot', model: 'm', status: 'planned' as const, items: 3, createdAt: '2026-01-01T00:00:00Z' };

describe('FileRunLedger', () => {
  it('ignores a torn last line left by a killed process and keeps exact counts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    const first = new FileRunLedger(dir);
    await first.createRun(run);
    expect(await first.recordItem('r/1', 'a', 'OK')).toBe(true);
    appendFileSync(join(dir, 'r_1.jsonl'), '{"e":"item","id":"b","v":"W');
    const reopened = new FileRunLedger(dir);
    expect((await reopened.getRun('r/1'))?.recorded).toBe(1);
    expect(await reopened.recordItem('r/1', 'a', 'OK')).toBe(false);
    expect(await reopened.recordItem('r/1', 'b', 'WA')).toBe(true);
    const again = new FileRunLedger(dir);
    expect(await again.getRun('r/1')).toMatchObject({ recorded: 2, verdicts: { OK: 1, WA: 1 } });
  });

  it('lists runs in creation order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    const ledger = new FileRunLedger(dir);
    await ledger.createRun({ ...run, runId: 'late', createdAt: '2026-02-01T00:00:00Z' });
    await ledger.createRun({ ...run, runId: 'early', createdAt: '2026-01-01T00:00:00Z' });
    expect((await ledger.listRuns()).map((r) => r.runId)).toEqual(['early', 'late']);
  });
});
