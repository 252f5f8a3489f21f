import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CostGuard } from '#core/run/cost-guard.ts';
import { FileRunLedger } from '#local/index.ts';

async function ledger() {
  const l = new FileRunLedger(mkdtempSync(join(tmpdir(), 'guard-')));
  await l.createRun({ runId: 'r', benchmark: 'abricot', model: 'm', status: 'running', items: 10, createdAt: '2026-01-01T00:00:00.000Z' });
  return l;
}

const perToken = (u: { promptTokens: number; completionTokens: number }) => (u.promptTokens + u.completionTokens) * 0.001;

describe('CostGuard', () => {
  it('reserves projected costs in the ledger so calls in flight never pass the cap together', async () => {
    const l = await ledger();
    const guard = new CostGuard({ ledger: l, runId: 'r', capUsd: 0.05, costOf: perToken });
    // One billed call first: until one has settled, on-demand calls go one at a time (next test).
    await guard.settle(await guard.reserve(0.011), { promptTokens: 11, completionTokens: 0 });

    const reservations = await Promise.allSettled(Array.from({ length: 8 }, () => guard.reserve(0.011, undefined, { oneAtATimeUntilCalibrated: true })));

    expect(reservations.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(reservations.find((r) => r.status === 'rejected')).toMatchObject({ reason: { name: 'RunStopped', message: expect.stringContaining('cost cap') } });
    expect((await l.getRun('r'))?.costUsd).toBeCloseTo(0.044, 12);
  });

  it("lets a capped run's first call go alone, so calls that cost more than projected do not settle past the cap together", async () => {
    const l = await ledger();
    const guard = new CostGuard({ ledger: l, runId: 'r', capUsd: 0.05, costOf: perToken });
    // Each call is projected at $0.01 and costs $0.02: four at once at the raw projection would book $0.08.
    const call = async (): Promise<void> => {
      const r = await guard.reserve(0.01, undefined, { oneAtATimeUntilCalibrated: true });
      await guard.settle(r, { promptTokens: 20, completionTokens: 0 });
    };

    const calls = await Promise.allSettled(Array.from({ length: 4 }, call));

    expect(calls.filter((c) => c.status === 'fulfilled')).toHaveLength(2);
    expect((await l.getRun('r'))?.costUsd).toBeCloseTo(0.04, 12);
  });

  it('lets the waiting calls go on when booking the first call fails', async () => {
    const l = await ledger();
    const guard = new CostGuard({ ledger: l, runId: 'r', capUsd: 1, costOf: perToken });
    const first = await guard.reserve(0.01, undefined, { oneAtATimeUntilCalibrated: true });
    const second = guard.reserve(0.01, undefined, { oneAtATimeUntilCalibrated: true });
    const trySpend = l.trySpend.bind(l);
    l.trySpend = (...args) => {
      l.trySpend = trySpend; // fails once: the first call's booking
      return Promise.reject(new Error(`disk full (${args[0]})`));
    };

    await expect(guard.settle(first, { promptTokens: 20, completionTokens: 0 })).rejects.toThrow('disk full');

    await expect(second).resolves.toMatchObject({ usd: 0.01 });
  });

  it('settles a reservation to the actual cost and returns an unused one', async () => {
    const l = await ledger();
    const guard = new CostGuard({ ledger: l, runId: 'r', capUsd: 1, costOf: perToken });

    const used = await guard.reserve(0.02);
    await guard.settle(used, { promptTokens: 5, completionTokens: 0 });
    const unused = await guard.reserve(0.02);
    await guard.release(unused);

    expect((await l.getRun('r'))?.costUsd).toBeCloseTo(0.005, 12);
  });

  it('books a call with an id once: the same call done again (a redelivered message) adds nothing, capped or not', async () => {
    for (const capUsd of [null, 1]) {
      const l = await ledger();
      const guard = new CostGuard({ ledger: l, runId: 'r', capUsd, costOf: perToken });
      for (let delivery = 0; delivery < 3; delivery++) {
        const reservation = await guard.reserve(0.02, 'r/t/0');
        await guard.settle(reservation, { promptTokens: 5, completionTokens: 0 });
      }
      const other = await guard.reserve(0.02, 'r/t/1');
      await guard.settle(other, { promptTokens: 3, completionTokens: 0 });
      await guard.settle(other, { promptTokens: 2, completionTokens: 0 });

      expect((await l.getRun('r'))?.costUsd, `cap ${capUsd}`).toBeCloseTo(0.01, 12);
    }
  });

  it('learns from real usage: a call that cost twice its estimate doubles the next projection', async () => {
    const l = await ledger();
    const guard = new CostGuard({ ledger: l, runId: 'r', capUsd: 1, costOf: perToken });

    const first = await guard.reserve(0.01);
    await guard.settle(first, { promptTokens: 20, completionTokens: 0 });
    const second = await guard.reserve(0.01);

    expect(second.usd).toBeCloseTo(0.02, 12);
  });

  it('counts spend without a cap and never stops', async () => {
    const l = await ledger();
    const guard = new CostGuard({ ledger: l, runId: 'r', capUsd: null, costOf: perToken });

    for (let i = 0; i < 3; i++) await guard.settle(await guard.reserve(100), { promptTokens: 1000, completionTokens: 0 });

    expect((await l.getRun('r'))?.costUsd).toBeCloseTo(3, 12);
  });
});
