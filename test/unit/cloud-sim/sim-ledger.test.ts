import { describe, expect, it } from 'vitest';
import { DynamoLimits } from '../../../sim/cloud/limits/dynamodb.ts';
import { SimLedger, type SimLedgerOptions } from '../../../sim/cloud/sim-ledger.ts';
import { VirtualTime } from '../../../sim/cloud/virtual-time.ts';

const RUN = 'rocode-20260105T000000Z-sim';

async function ledgerWith(options: Partial<SimLedgerOptions>): Promise<SimLedger> {
  const ledger = new SimLedger({
    time: new VirtualTime(),
    // No transaction holds: these bookings all happen at one virtual instant, outside any invocation.
    limits: new DynamoLimits(0),
    costOnRunRow: false,
    random: () => 0.5,
    shards: 16,
    bookingIds: true,
    partShards: true,
    batchRecords: true,
    ...options,
  });
  await ledger.createRun({ runId: RUN, status: 'running', items: 2, benchmark: 'rocode', model: 'reference', createdAt: '2026-01-05T00:00:00.000Z' } as never);
  return ledger;
}

/** Books each call twice, as a redelivered generate message does: uncapped (addCost) and capped (trySpend). */
async function bookTwice(ledger: SimLedger): Promise<number> {
  for (let i = 0; i < 2; i++) {
    await ledger.addCost(RUN, 0.5, `${RUN}/t1/0/settle`);
    expect(await ledger.trySpend(RUN, 0.25, 10, `${RUN}/t2/0/settle`)).toBe(true);
  }
  return (await ledger.getRun(RUN))?.costUsd ?? Number.NaN;
}

describe("the simulated ledger's --without switches", () => {
  it('books each call once with booking ids, on the cost row or (without cost-row) on the run row', async () => {
    expect(await bookTwice(await ledgerWith({}))).toBeCloseTo(0.75, 12);
    // `--without cost-row` reverts where spend lives, not the booking ids: still once per call.
    expect(await bookTwice(await ledgerWith({ costOnRunRow: true }))).toBeCloseTo(0.75, 12);
    expect(await bookTwice(await ledgerWith({ costOnRunRow: true, shards: 0 }))).toBeCloseTo(0.75, 12);
  });

  it('books a repeated call again only without booking ids (`--without call-ids`)', async () => {
    expect(await bookTwice(await ledgerWith({ bookingIds: false }))).toBeCloseTo(1.5, 12);
    expect(await bookTwice(await ledgerWith({ bookingIds: false, costOnRunRow: true }))).toBeCloseTo(1.5, 12);
  });
});

describe("the simulated ledger's claimStatus", () => {
  it('claims as the DynamoDB ledger does (one conditional UpdateItem): only from the statuses given, one winner, none for an unknown run', async () => {
    const ledger = await ledgerWith({});
    await ledger.setStatus(RUN, 'completed_with_missing', '1 of 2 items never recorded');
    const wins = await Promise.all([1, 2].map(() => ledger.claimStatus(RUN, ['completed', 'completed_with_missing'], 'running', 'resume r requested')));
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect(await ledger.getRun(RUN)).toMatchObject({ status: 'running', reason: 'resume r requested' });
    expect(await ledger.claimStatus(RUN, ['completed'], 'failed')).toBe(false);
    expect(await ledger.claimStatus(RUN, ['running'], 'completed')).toBe(true);
    expect(await ledger.getRun(RUN)).toMatchObject({ status: 'completed' });
    expect((await ledger.getRun(RUN))?.reason).toBeUndefined();
    expect(await ledger.claimStatus('no-such-run', ['completed'], 'running')).toBe(false);
  });
});

describe("the simulated ledger's recordItems", () => {
  const batch = (ids: number[]) => ids.map((i) => ({ itemId: `${RUN}/t${i}/0`, verdict: i % 2 === 0 ? ('OK' as const) : ('WA' as const) }));

  it('bills a batch as DynamoDB does: 2 units per item row and 2 for its one count row; one record at a time, 4 each', async () => {
    const limits = new DynamoLimits(0);
    const batched = await ledgerWith({ limits });
    expect(await batched.recordItems(RUN, batch([0, 1, 2, 3, 4]))).toEqual([true, true, true, true, true]);
    expect(limits.writeUnits).toBe(5 * 2 + 2);

    const singleLimits = new DynamoLimits(0);
    const single = await ledgerWith({ limits: singleLimits, batchRecords: false });
    expect(await single.recordItems(RUN, batch([0, 1, 2, 3, 4]))).toEqual([true, true, true, true, true]);
    expect(singleLimits.writeUnits).toBe(5 * 4);
    expect(await single.getRun(RUN)).toMatchObject({ recorded: 5, verdicts: { OK: 3, WA: 2 } });
  });

  it('counts the others of a batch once when one was counted before: the cancelled attempt billed, then the rest', async () => {
    const limits = new DynamoLimits(0);
    const ledger = await ledgerWith({ limits });
    await ledger.recordItem(RUN, `${RUN}/t1/0`, 'WA');
    const before = limits.writeUnits;

    expect(await ledger.recordItems(RUN, batch([0, 1, 2]))).toEqual([true, false, true]);
    expect(limits.writeUnits - before).toBe(3 * 2 + 2 + (2 * 2 + 2));
    expect(await ledger.recordItems(RUN, batch([0, 1, 2]))).toEqual([false, false, false]);
    expect(await ledger.getRun(RUN)).toMatchObject({ recorded: 3, verdicts: { OK: 2, WA: 1 } });
  });
});

describe("the simulated ledger's addCosts", () => {
  const bookings = (ids: number[], usd = 0.25) => ids.map((i) => ({ bookingId: `${RUN}/t${i}/0/settle`, usd }));

  it('bills a batch as DynamoDB does: 2 units per booking row and 2 for its one count row; one addCost a call, 4 each', async () => {
    const limits = new DynamoLimits(0);
    const batched = await ledgerWith({ limits });
    await batched.addCosts(RUN, bookings([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]));
    expect(limits.writeUnits).toBe(12 * 2 + 2);
    expect((await batched.getRun(RUN))?.costUsd).toBe(3);

    const singleLimits = new DynamoLimits(0);
    const single = await ledgerWith({ limits: singleLimits });
    for (const { bookingId, usd } of bookings([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])) await single.addCost(RUN, usd, bookingId);
    expect(singleLimits.writeUnits).toBe(12 * 4);
    expect((await single.getRun(RUN))?.costUsd).toBe(3);
  });

  it('books the others of a batch once when one was booked before (the cancelled attempt billed), and a redelivered batch not at all', async () => {
    const limits = new DynamoLimits(0);
    const ledger = await ledgerWith({ limits });
    await ledger.addCost(RUN, 0.25, `${RUN}/t1/0/settle`);
    const before = limits.writeUnits;

    await ledger.addCosts(RUN, bookings([0, 1, 2]));
    expect(limits.writeUnits - before).toBe(3 * 2 + 2 + (2 * 2 + 2));
    await ledger.addCosts(RUN, bookings([0, 1, 2]));
    // An id twice in one batch is booked once.
    await ledger.addCosts(RUN, [...bookings([3]), ...bookings([3])]);
    expect((await ledger.getRun(RUN))?.costUsd).toBe(1);
  });
});
