// The judge's RecordBatch (layers/app/cloud/record-batch.ts) with the hand-off batch that carries it
// (continuation.ts HandoffBatch), as functions/execute/handler.ts wires them: the waiting counts go to
// the ledger only once no participant is still working, one recordItems per run, and a batch-mate that
// fails, hands off or grows never loses or holds back another's count.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ItemCount, RunLedger } from '#core/ports.ts';
import { HandoffBatch } from '#app/cloud/continuation.ts';
import { RecordBatch } from '#app/cloud/record-batch.ts';
import { statusOncePerInvocation } from '#app/cloud/status-once.ts';
import { FileRunLedger } from '#local/index.ts';

interface Observed {
  ledger: RunLedger;
  /** The recordItems calls that reached the ledger: run id and item ids. */
  calls: { runId: string; ids: string[] }[];
}

/** A file ledger with runs r1 and r2; recordItems of `failing` runs rejects. */
async function observed(failing: string[] = []): Promise<Observed> {
  const inner = new FileRunLedger(mkdtempSync(join(tmpdir(), 'record-batch-')));
  for (const runId of ['r1', 'r2'])
    await inner.createRun({ runId, benchmark: 'rocode', model: 'm', status: 'running', items: 10, createdAt: '2026-01-01T00:00:00.000Z' });
  const calls: Observed['calls'] = [];
  const ledger = new Proxy(inner, {
    get(target, name, receiver) {
      if (name === 'recordItems')
        return (runId: string, items: readonly ItemCount[]) => {
          calls.push({ runId, ids: items.map((i) => i.itemId) });
          return failing.includes(runId) ? Promise.reject(new Error('ledger unavailable')) : target.recordItems(runId, items);
        };
      const value: unknown = Reflect.get(target, name, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { ledger, calls };
}

const settledSoon = async <T>(promise: Promise<T>): Promise<PromiseSettledResult<T> | 'pending'> => {
  const timer = new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), 20));
  return Promise.race([
    promise.then(
      (value): PromiseSettledResult<T> => ({ status: 'fulfilled', value }),
      (reason: unknown): PromiseSettledResult<T> => ({ status: 'rejected', reason }),
    ),
    timer,
  ]);
};

describe('RecordBatch: a judge invocation counts its records together', () => {
  it('holds the counts while a batch-mate is scored; one that then fails (its record never written) releases them, one recordItems per run', async () => {
    const { ledger, calls } = await observed();
    const records = new RecordBatch(3);
    const batch = new HandoffBatch(3, () => Promise.resolve(), records);

    const a = records.over(ledger).recordItem('r1', 'r1/t1/0', 'OK');
    const b = records.over(ledger).recordItem('r2', 'r2/t1/0', 'WA');
    expect(await settledSoon(a)).toBe('pending');
    expect(calls).toEqual([]);

    batch.leave(); // the third item failed before its count (say its S3 document write): its message comes back on its own
    expect(await a).toBe(true);
    expect(await b).toBe(true);
    expect(calls).toEqual([
      { runId: 'r1', ids: ['r1/t1/0'] },
      { runId: 'r2', ids: ['r2/t1/0'] },
    ]);
    expect(await ledger.getRun('r1')).toMatchObject({ recorded: 1, verdicts: { OK: 1 } });
    expect(await ledger.getRun('r2')).toMatchObject({ recorded: 1, verdicts: { WA: 1 } });
  });

  it('fails every item waiting on a run whose recordItems failed (their messages come back), and only those', async () => {
    const { ledger, calls } = await observed(['r1']);
    const records = new RecordBatch(3);

    const a = records.over(ledger).recordItem('r1', 'r1/t1/0', 'OK');
    const b = records.over(ledger).recordItem('r1', 'r1/t2/0', 'OK');
    const c = records.over(ledger).recordItem('r2', 'r2/t1/0', 'OK');

    await expect(a).rejects.toThrow('ledger unavailable');
    await expect(b).rejects.toThrow('ledger unavailable');
    expect(await c).toBe(true);
    expect(calls.map((call) => call.runId)).toEqual(['r1', 'r2']);
    expect(await ledger.getRun('r1')).toMatchObject({ recorded: 0 });
  });

  it('releases the counts when the last working batch-mate hands off to its runner, and counts an item delivered twice once', async () => {
    const { ledger, calls } = await observed();
    const records = new RecordBatch(3);
    const invoked: string[] = [];
    const batch = new HandoffBatch(
      3,
      (payload) => {
        invoked.push(payload);
        return Promise.resolve();
      },
      records,
    );

    const first = records.over(ledger).recordItem('r1', 'r1/t1/0', 'OK');
    const again = records.over(ledger).recordItem('r1', 'r1/t1/0', 'OK');
    expect(await settledSoon(first)).toBe('pending');
    const handedOff = batch.handOff('r1\nt2', { request: {} } as never);

    expect([await first, await again]).toEqual([true, false]);
    expect(calls).toEqual([{ runId: 'r1', ids: ['r1/t1/0', 'r1/t1/0'] }]);
    expect(await ledger.getRun('r1')).toMatchObject({ recorded: 1 });
    // The hand-off itself still waits for the two recorded items to finish (they are its participants).
    expect(await settledSoon(handedOff)).toBe('pending');
    expect(invoked).toEqual([]);
  });

  it("waits for every item a runner's record continues (grow), not only for the record's message", async () => {
    const { ledger } = await observed();
    const records = new RecordBatch(1);
    const batch = new HandoffBatch(1, () => Promise.resolve(), records);
    batch.grow(2); // one record continues three items

    const a = records.over(ledger).recordItem('r1', 'r1/t1/0', 'OK');
    const b = records.over(ledger).recordItem('r1', 'r1/t1/1', 'OK');
    expect(await settledSoon(a)).toBe('pending');
    const c = records.over(ledger).recordItem('r1', 'r1/t1/2', 'WA');

    expect([await a, await b, await c]).toEqual([true, true, true]);
    expect(await ledger.getRun('r1')).toMatchObject({ recorded: 3, verdicts: { OK: 2, WA: 1 } });
  });
});

// Issue 35 (reads per item): generate's first look asks RunLedger.countedVerdict when the ledger has it
// and reads the item's document in S3 otherwise (stages.ts generateWork). A wrapper that dropped the
// method would silently bring the S3 GET back; one that invented it would hide a ledger without it.
describe('ledger wrappers keep countedVerdict', () => {
  const counting = (ledger: RunLedger): RunLedger =>
    new Proxy(ledger, {
      get(target, name, receiver) {
        if (name === 'countedVerdict') return (runId: string, id: string) => Promise.resolve(runId === 'r1' && id === 'r1/t1/0' ? 'OK' : undefined);
        return Reflect.get(target, name, receiver) as unknown;
      },
    });

  it('RecordBatch.over and statusOncePerInvocation pass it through, and have none when the ledger has none', async () => {
    const { ledger } = await observed();
    expect(new RecordBatch(1).over(ledger).countedVerdict).toBeUndefined();
    expect(statusOncePerInvocation(ledger).countedVerdict).toBeUndefined();
    for (const wrapped of [new RecordBatch(1).over(counting(ledger)), statusOncePerInvocation(counting(ledger))]) {
      expect(await wrapped.countedVerdict?.('r1', 'r1/t1/0')).toBe('OK');
      expect(await wrapped.countedVerdict?.('r1', 'r1/t2/0')).toBeUndefined();
    }
  });
});
