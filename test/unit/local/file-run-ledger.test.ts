import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CorruptRecordError } from '#core/errors.ts';
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

  it('ignores a torn line a resumed run appended past, on every later load', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    const first = new FileRunLedger(dir);
    await first.createRun(run);
    await first.recordItem('r/1', 'a', 'OK');
    appendFileSync(join(dir, 'r_1.jsonl'), '{"e":"item","id":"b","v":"W');
    // A resume's first write may come before any read of the journal (setStatus reads nothing).
    await new FileRunLedger(dir).setStatus('r/1', 'running');
    await new FileRunLedger(dir).recordItem('r/1', 'b', 'WA');
    await new FileRunLedger(dir).recordItem('r/1', 'c', 'OK');

    expect(readFileSync(join(dir, 'r_1.jsonl'), 'utf8').split('\n')[2]).toBe('{"e":"item","id":"b","v":"W');
    expect(await new FileRunLedger(dir).getRun('r/1')).toMatchObject({ status: 'running', recorded: 3, verdicts: { OK: 2, WA: 1 } });
  });

  it.each([
    ['a line that is not JSON', 'this line was edited by hand', /r_1\.jsonl, line 3: is not JSON/],
    ['a verdict that is none', '{"e":"item","id":"b","v":"MAYBE","at":"2026-01-01T00:00:01Z"}', /r_1\.jsonl, line 3, field "v"/],
    ['an event kind it does not know', '{"e":"pause","at":"2026-01-01T00:00:01Z"}', /r_1\.jsonl, line 3, field "e"/],
    ['a cost that is not a number', '{"e":"cost","usd":"0.5","at":"2026-01-01T00:00:01Z"}', /r_1\.jsonl, line 3, field "usd"/],
    [
      'an event from a newer polyeval',
      '{"schema_version":2,"e":"item","id":"b","v":"OK","at":"2026-01-01T00:00:01Z"}',
      /r_1\.jsonl, line 3, field "schema_version": schema_version 2 is not one this polyeval reads/,
    ],
  ])('names the file, line and field of %s before the last line, and lists that run as failed with it', async (_what, damaged, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    const first = new FileRunLedger(dir);
    await first.createRun(run);
    await first.recordItem('r/1', 'a', 'OK');
    appendFileSync(join(dir, 'r_1.jsonl'), `${damaged}\n{"e":"item","id":"c","v":"OK","at":"2026-01-01T00:00:02Z"}\n`);

    for (const read of [() => new FileRunLedger(dir).getRun('r/1'), () => new FileRunLedger(dir).recordItem('r/1', 'd', 'OK')]) {
      await expect(read()).rejects.toBeInstanceOf(CorruptRecordError);
      await expect(read()).rejects.toThrow(message);
    }
    const [listed, ...others] = await new FileRunLedger(dir).listRuns();
    expect(others).toEqual([]);
    expect(listed).toMatchObject({ runId: 'r/1', status: 'failed', recorded: 0 });
    expect(listed?.reason).toMatch(message);
  });

  it('refuses a complete last line that does not match, since no crash leaves one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    await new FileRunLedger(dir).createRun(run);
    appendFileSync(join(dir, 'r_1.jsonl'), '{"e":"item","id":"b","v":"MAYBE","at":"2026-01-01T00:00:01Z"}');

    await expect(new FileRunLedger(dir).getRun('r/1')).rejects.toThrow(/r_1\.jsonl, line 2, field "v"/);
  });

  it('reads a journal written before validation existed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    const lines = [
      { e: 'create', run, at: run.createdAt },
      { e: 'item', id: 'a', v: 'OK', at: '2026-01-01T00:00:01Z' },
      { e: 'item', id: 'b', v: 'SE', at: '2026-01-01T00:00:02Z' },
      { e: 'revise', id: 'b', from: 'SE', v: 'WA', at: '2026-01-01T00:00:03Z' },
      { e: 'cost', usd: 0.25, at: '2026-01-01T00:00:04Z' },
      { e: 'status', status: 'stopped', reason: 'cost cap', at: '2026-01-01T00:00:05Z' },
    ];
    writeFileSync(join(dir, 'r_1.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n') + '\n');

    expect(await new FileRunLedger(dir).getRun('r/1')).toEqual({
      ...run,
      status: 'stopped',
      reason: 'cost cap',
      recorded: 2,
      verdicts: { OK: 1, WA: 1 },
      costUsd: 0.25,
      updatedAt: '2026-01-01T00:00:05Z',
    });
  });

  it('lists no file whose first line is no run creation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    await new FileRunLedger(dir).createRun(run);
    writeFileSync(join(dir, 'notes.jsonl'), '{"note":"not a journal"}\n');
    writeFileSync(join(dir, 'killed-at-creation.jsonl'), '{"e":"create","run":{"runId":"k"');

    expect((await new FileRunLedger(dir).listRuns()).map((r) => r.runId)).toEqual(['r/1']);
  });

  it('lists runs in creation order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    const ledger = new FileRunLedger(dir);
    await ledger.createRun({ ...run, runId: 'late', createdAt: '2026-02-01T00:00:00Z' });
    await ledger.createRun({ ...run, runId: 'early', createdAt: '2026-01-01T00:00:00Z' });
    expect((await ledger.listRuns()).map((r) => r.runId)).toEqual(['early', 'late']);
  });
});
