// The RunLedger contract (layers/core/ports.ts), run against every adapter: the local
// journal file and DynamoDB on a real moto_server.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunLedger } from '#core/ports.ts';
import { DynamoRunLedger } from '#aws/index.ts';
import { FileRunLedger } from '#local/index.ts';
import { awsClientConfig, createLedgerTable, startMoto, type Moto } from '../../support/moto.ts';

let moto: Moto;
let dynamo: DynamoDBClient;
const tempDirs: string[] = [];
let tables = 0;

beforeAll(async () => {
  // Serialized: threaded moto breaks the atomicity of concurrent transactions (see startMoto).
  moto = await startMoto({ serialized: true });
  dynamo = new DynamoDBClient(awsClientConfig(moto.endpoint));
});

afterAll(async () => {
  dynamo?.destroy();
  await moto?.stop();
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const adapters: { name: string; create: () => Promise<RunLedger> }[] = [
  {
    name: 'FileRunLedger',
    create: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'polyeval-ledger-'));
      tempDirs.push(dir);
      return new FileRunLedger(dir);
    },
  },
  {
    name: 'DynamoRunLedger',
    create: async () => {
      const tableName = `ledger-${++tables}`;
      await createLedgerTable(dynamo, tableName);
      // A tiny page size makes every multi-row read cross page boundaries.
      return new DynamoRunLedger({ client: dynamo, tableName, pageSize: 2 });
    },
  },
];

function newRun(runId: string, createdAt = '2025-01-02T03:04:05.000Z') {
  return { runId, benchmark: 'abricot', model: 'reference', status: 'running' as const, items: 4, createdAt };
}

describe.each(adapters)('RunLedger contract: $name', ({ create }) => {
  it('returns a created run with zero counters', async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));

    const run = await ledger.getRun('r1');

    expect(run).toMatchObject({ ...newRun('r1'), recorded: 0, verdicts: {}, costUsd: 0 });
    expect(typeof run?.updatedAt).toBe('string');
  });

  it('returns undefined for a run it does not know', async () => {
    const ledger = await create();

    expect(await ledger.getRun('missing')).toBeUndefined();
  });

  it('counts an item once: true the first time, false for every redelivery', async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));

    const first = await ledger.recordItem('r1', 'r1/t1/0', 'OK');
    const second = await ledger.recordItem('r1', 'r1/t1/0', 'OK');
    const third = await ledger.recordItem('r1', 'r1/t1/0', 'WA');

    expect([first, second, third]).toEqual([true, false, false]);
    expect(await ledger.getRun('r1')).toMatchObject({ recorded: 1, verdicts: { OK: 1 } });
  });

  it('moves a counted item to another verdict once, when it is counted with the expected one', async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));
    await ledger.recordItem('r1', 'r1/t1/0', 'SE');
    await ledger.recordItem('r1', 'r1/t2/0', 'OK');

    const moved = await ledger.reviseItem('r1', 'r1/t1/0', 'SE', 'WA');
    const again = await ledger.reviseItem('r1', 'r1/t1/0', 'SE', 'WA');
    const unknown = await ledger.reviseItem('r1', 'r1/t9/0', 'SE', 'OK');

    expect([moved, again, unknown]).toEqual([true, false, false]);
    expect(await ledger.getRun('r1')).toMatchObject({ recorded: 2, verdicts: { WA: 1, OK: 1 } });
    expect((await ledger.getRun('r1'))?.verdicts.SE ?? 0).toBe(0);
  });

  it('counts a batch of items once: each new one true, one counted before (or twice in the batch) false, a revision after it kept', async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));
    await ledger.recordItem('r1', 'r1/t2/0', 'WA');

    const first = await ledger.recordItems('r1', [
      { itemId: 'r1/t1/0', verdict: 'OK' },
      { itemId: 'r1/t2/0', verdict: 'OK' },
      { itemId: 'r1/t3/0', verdict: 'SE' },
      { itemId: 'r1/t1/0', verdict: 'OK' },
    ]);
    const again = await ledger.recordItems('r1', [
      { itemId: 'r1/t1/0', verdict: 'OK' },
      { itemId: 'r1/t3/0', verdict: 'SE' },
    ]);
    const revised = await ledger.reviseItem('r1', 'r1/t3/0', 'SE', 'OK');

    expect(first).toEqual([true, false, true, false]);
    expect(again).toEqual([false, false]);
    expect(revised).toBe(true);
    expect(await ledger.getRun('r1')).toMatchObject({ recorded: 3, verdicts: { OK: 2, WA: 1 } });
    expect([...(await ledger.recordedItems('r1'))].sort()).toEqual(['r1/t1/0', 'r1/t2/0', 'r1/t3/0']);
  });

  it('counts an item once under concurrent duplicate calls', async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));

    const results = await Promise.all(Array.from({ length: 6 }, () => ledger.recordItem('r1', 'r1/abstractness/7/0', 'WA')));

    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await ledger.getRun('r1')).toMatchObject({ recorded: 1, verdicts: { WA: 1 } });
  });

  it('keeps one counter per verdict and lists the recorded item ids of its run only', async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));
    await ledger.createRun(newRun('r2'));
    const items: [string, 'OK' | 'WA' | 'CE'][] = [
      ['r1/t1/0', 'OK'],
      ['r1/t1/1', 'OK'],
      ['r1/t2/0', 'WA'],
      ['r1/t3/0', 'CE'],
      ['r1/t4/0', 'OK'],
    ];

    await Promise.all(items.map(([id, verdict]) => ledger.recordItem('r1', id, verdict)));
    await ledger.recordItem('r2', 'r2/t1/0', 'OK');

    expect(await ledger.getRun('r1')).toMatchObject({ recorded: 5, verdicts: { OK: 3, WA: 1, CE: 1 } });
    expect([...(await ledger.recordedItems('r1'))].sort()).toEqual(items.map(([id]) => id).sort());
    expect([...(await ledger.recordedItems('r2'))]).toEqual(['r2/t1/0']);
    expect((await ledger.recordedItems('r3')).size).toBe(0);
  });

  it('keeps the existing run, counters included, when the run is created again', async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));
    await ledger.recordItem('r1', 'r1/t1/0', 'OK');

    await ledger.createRun({ ...newRun('r1'), model: 'another' });

    expect(await ledger.getRun('r1')).toMatchObject({ model: 'reference', recorded: 1, verdicts: { OK: 1 } });
    expect((await ledger.listRuns()).map((run) => run.runId)).toEqual(['r1']);
  });

  it('adds costs up', async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));

    await ledger.addCost('r1', 0.25);
    await ledger.addCost('r1', 0.5);

    expect((await ledger.getRun('r1'))?.costUsd).toBeCloseTo(0.75, 10);
  });

  it('spends only while the total stays within the cap, and always without one', async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));

    expect(await ledger.trySpend('r1', 0.25, 0.5)).toBe(true);
    expect(await ledger.trySpend('r1', 0.25, 0.5)).toBe(true);
    expect(await ledger.trySpend('r1', 0.01, 0.5)).toBe(false);
    expect(await ledger.trySpend('r1', -0.1, 0.5)).toBe(true);
    expect(await ledger.trySpend('r1', 5, null)).toBe(true);

    expect((await ledger.getRun('r1'))?.costUsd).toBeCloseTo(5.4, 10);
  });

  it('lets concurrent spends through only up to the cap', async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));

    const results = await Promise.all(Array.from({ length: 10 }, () => ledger.trySpend('r1', 0.1, 0.35)));

    expect(results.filter(Boolean)).toHaveLength(3);
    expect((await ledger.getRun('r1'))?.costUsd).toBeCloseTo(0.3, 10);
  });

  it('books a spend with a booking id once, however often it is repeated (a redelivered message, a retried request)', async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));

    await ledger.addCost('r1', 0.25, 'r1/t/0/settle');
    await ledger.addCost('r1', 0.25, 'r1/t/0/settle');
    await Promise.all([ledger.addCost('r1', 0.5, 'r1/t/1/settle'), ledger.addCost('r1', 0.5, 'r1/t/1/settle')]);
    expect(await ledger.trySpend('r1', 0.125, 10, 'r1/t/2/reserve')).toBe(true);
    expect(await ledger.trySpend('r1', 0.125, 10, 'r1/t/2/reserve')).toBe(true);
    expect(await ledger.trySpend('r1', -0.0625, null, 'r1/t/2/settle')).toBe(true);
    expect(await ledger.trySpend('r1', -0.0625, null, 'r1/t/2/settle')).toBe(true);
    await ledger.addCost('r1', 1);

    expect((await ledger.getRun('r1'))?.costUsd).toBeCloseTo(1.8125, 10);
  });

  it('books a batch of settlements once each: one booked before (or twice in the batch) adds nothing, a redelivered batch nothing at all', async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));
    await ledger.addCost('r1', 0.25, 'r1/t/2/settle');

    const batch = [
      { bookingId: 'r1/t/1/settle', usd: 0.5 },
      { bookingId: 'r1/t/2/settle', usd: 0.25 },
      { bookingId: 'r1/t/3/settle', usd: 0.125 },
      { bookingId: 'r1/t/1/settle', usd: 0.5 },
    ];
    await ledger.addCosts('r1', batch);
    await ledger.addCosts('r1', batch);
    // A booking of the batch is a booking like addCost's: addCost with its id adds nothing either.
    await ledger.addCost('r1', 0.125, 'r1/t/3/settle');

    expect((await ledger.getRun('r1'))?.costUsd).toBe(0.875);
  });

  it('refuses a booking that would pass the cap, and books it once it fits', async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));

    expect(await ledger.trySpend('r1', 0.4, 0.5, 'a/reserve')).toBe(true);
    expect(await ledger.trySpend('r1', 0.2, 0.5, 'b/reserve')).toBe(false);
    expect(await ledger.trySpend('r1', -0.3, null, 'a/settle')).toBe(true);
    expect(await ledger.trySpend('r1', 0.2, 0.5, 'b/reserve')).toBe(true);

    expect((await ledger.getRun('r1'))?.costUsd).toBeCloseTo(0.3, 10);
  });

  it("answers a run's status alone, and undefined for a run it does not know", async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));
    await ledger.setStatus('r1', 'cancelled', 'by the user');

    expect(await ledger.runStatus('r1')).toBe('cancelled');
    expect(await ledger.runStatus('ghost')).toBeUndefined();
  });

  it('sets the status with its reason', async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));

    await ledger.setStatus('r1', 'stopped', 'cost cap reached');
    const stopped = await ledger.getRun('r1');
    await ledger.setStatus('r1', 'completed');

    expect(stopped).toMatchObject({ status: 'stopped', reason: 'cost cap reached' });
    expect((await ledger.getRun('r1'))?.status).toBe('completed');
  });

  it('claims a status only from the ones given: of concurrent claims from the same status exactly one wins', async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));
    await ledger.setStatus('r1', 'completed_with_missing', '1 of 4 items never recorded');

    const wins = await Promise.all([1, 2, 3].map(() => ledger.claimStatus('r1', ['completed', 'completed_with_missing'], 'running', 'resume requested')));
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect(await ledger.getRun('r1')).toMatchObject({ status: 'running', reason: 'resume requested' });

    expect(await ledger.claimStatus('r1', ['completed'], 'failed')).toBe(false);
    expect(await ledger.claimStatus('r1', ['running'], 'completed_with_missing', '1 of 4 items never recorded')).toBe(true);
    expect(await ledger.getRun('r1')).toMatchObject({ status: 'completed_with_missing', reason: '1 of 4 items never recorded' });
    expect(await ledger.claimStatus('r1', ['completed_with_missing'], 'completed')).toBe(true);
    expect((await ledger.getRun('r1'))?.reason).toBeUndefined();
    expect(await ledger.claimStatus('no-such-run', ['completed'], 'running')).toBe(false);
  });

  it('keeps a cancelled run cancelled whatever a stage sets after the cancel', async () => {
    const ledger = await create();
    await ledger.createRun(newRun('r1'));

    await ledger.setStatus('r1', 'cancelled', 'cancelled by the user');
    await ledger.setStatus('r1', 'running');
    await ledger.setStatus('r1', 'completed');

    expect(await ledger.getRun('r1')).toMatchObject({ status: 'cancelled', reason: 'cancelled by the user' });
  });

  it('lists every run with its counters', async () => {
    const ledger = await create();
    const ids = ['r-a', 'r-b', 'r-c', 'r-d', 'r-e'];
    for (const [index, id] of ids.entries()) await ledger.createRun(newRun(id, `2025-01-0${index + 1}T00:00:00.000Z`));
    await ledger.recordItem('r-c', 'r-c/t1/0', 'TLE');

    const runs = await ledger.listRuns();

    expect(runs.map((run) => run.runId).sort()).toEqual(ids);
    expect(runs.find((run) => run.runId === 'r-c')).toMatchObject({ recorded: 1, verdicts: { TLE: 1 } });
  });
});
