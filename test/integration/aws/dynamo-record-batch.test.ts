// DynamoRunLedger.recordItems on a real moto_server: a judge invocation's records in as few
// TransactWriteItems as DynamoDB allows (layers/aws/dynamo-record-batch.ts).
//
// moto's answer to a cancelled transaction is DynamoDB's: getmoto/moto @0af643a (installed 5.2.1, same
// code), moto/dynamodb/models/__init__.py DynamoDBBackend.transact_write_items evaluates every action,
// collects one (Code, Message) per action — "ConditionalCheckFailed" where a condition failed, None
// where it held — rolls the tables back and raises TransactionCanceledException, which
// moto/dynamodb/exceptions.py serialises as `CancellationReasons` in request order, `{"Code": "None"}`
// for the actions that were fine. moto never reports `TransactionConflict` (it applies one request at a
// time, and this suite serialises moto_server): the conflict tests inject DynamoDB's cancellation for
// it at the SDK client's boundary, as a real table answers a transaction that met another.
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessError } from '#core/errors.ts';
import type { ItemCount } from '#core/ports.ts';
import { countKeys, shardOf, shardPk } from '#aws/dynamo-ledger-schema.ts';
import { startMoto, type Moto } from '../../support/moto.ts';
import { ledgerOnMoto, type LedgerOnMoto } from '../../support/ledger-on-moto.ts';

let moto: Moto;
let tables = 0;

beforeAll(async () => {
  // Serialized: threaded moto breaks the atomicity of concurrent transactions (see startMoto).
  moto = await startMoto({ serialized: true });
});

afterAll(async () => {
  await moto?.stop();
});

type Harness = LedgerOnMoto;

/** A ledger with run r1 on its own table; `conflicts` of its first transactions are cancelled with TransactionConflict. */
const harness = (conflicts = 0): Promise<Harness> => ledgerOnMoto(moto, `batch-${++tables}`, conflicts);

const batch = (ids: number[], verdictOf: (i: number) => ItemCount['verdict'] = (i) => (i % 3 === 0 ? 'WA' : 'OK')): ItemCount[] =>
  ids.map((i) => ({ itemId: `r1/t${i}/0`, verdict: verdictOf(i) }));

/** Every count row of the run, shard 0 first (`recorded` of each). */
async function recordedPerShard(h: Harness): Promise<number[]> {
  const rows = await Promise.all(
    countKeys('r1').map((key) => h.dynamo.send(new GetItemCommand({ TableName: h.tableName, Key: { pk: { S: key.pk }, sk: { S: key.sk } } }))),
  );
  return rows.map((row) => Number(row.Item?.recorded?.N ?? 0));
}

describe('DynamoRunLedger.recordItems', () => {
  it('records a judge batch of 10 in ONE transaction: every item row in its own shard, the totals on one count row', async () => {
    const h = await harness();
    const items = batch([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);

    const counted = await h.ledger.recordItems('r1', items);

    expect(counted).toEqual(items.map(() => true));
    expect(h.transactions().length).toBe(1);
    expect(await h.ledger.getRun('r1')).toMatchObject({ recorded: 10, verdicts: { OK: 6, WA: 4 } });
    expect([...(await h.ledger.recordedItems('r1'))].sort()).toEqual(items.map((i) => i.itemId).sort());
    const perShard = await recordedPerShard(h);
    expect(perShard[shardOf('r1/t0/0')]).toBe(10);
    expect(perShard.reduce((a, b) => a + b, 0)).toBe(10);
    const row = await h.dynamo.send(
      new GetItemCommand({ TableName: h.tableName, Key: { pk: { S: shardPk('r1', shardOf('r1/t7/0')) }, sk: { S: 'ITEM#r1/t7/0' } } }),
    );
    expect(row.Item?.verdict?.S).toBe('OK');
  });

  it('changes nothing when the same batch is delivered again: every item answers false', async () => {
    const h = await harness();
    const items = batch([0, 1, 2, 3, 4]);
    await h.ledger.recordItems('r1', items);

    const again = await h.ledger.recordItems('r1', items);

    expect(again).toEqual([false, false, false, false, false]);
    expect(await h.ledger.getRun('r1')).toMatchObject({ recorded: 5, verdicts: { OK: 3, WA: 2 } });
    expect((await recordedPerShard(h)).reduce((a, b) => a + b, 0)).toBe(5);
  });

  it('records the others of a batch with one item counted before, that one answering false', async () => {
    const h = await harness();
    expect(await h.ledger.recordItem('r1', 'r1/t2/0', 'CE')).toBe(true);

    const counted = await h.ledger.recordItems('r1', batch([0, 1, 2, 3, 4]));

    expect(counted).toEqual([true, true, false, true, true]);
    // The duplicate's own verdict stays as first counted; the others' are added once.
    expect(await h.ledger.getRun('r1')).toMatchObject({ recorded: 5, verdicts: { OK: 2, WA: 2, CE: 1 } });
    // The first transaction was cancelled by the duplicate's condition; the second counted the other four.
    expect(h.transactions().length).toBe(1 + 2);
  });

  it('sends a batch again after a TransactionConflict, counting each item once', async () => {
    const h = await harness(2);

    const counted = await h.ledger.recordItems('r1', batch([0, 1, 2, 3]));

    expect(counted).toEqual([true, true, true, true]);
    expect(await h.ledger.getRun('r1')).toMatchObject({ recorded: 4, verdicts: { OK: 2, WA: 2 } });
  });

  it('fails with a HarnessError after 8 conflicts, having counted nothing, so a redelivery counts every item', async () => {
    const h = await harness(8);

    await expect(h.ledger.recordItems('r1', batch([0, 1, 2]))).rejects.toBeInstanceOf(HarnessError);
    expect(await h.ledger.getRun('r1')).toMatchObject({ recorded: 0 });

    expect(await h.ledger.recordItems('r1', batch([0, 1, 2]))).toEqual([true, true, true]);
    expect(await h.ledger.getRun('r1')).toMatchObject({ recorded: 3, verdicts: { OK: 2, WA: 1 } });
  });

  it("splits a batch over DynamoDB's 100 actions: 150 items in two transactions, counts per verdict exact", async () => {
    const h = await harness();
    const ids = Array.from({ length: 150 }, (_, i) => i);

    const counted = await h.ledger.recordItems(
      'r1',
      batch(ids, (i) => (['OK', 'WA', 'TLE', 'RE', 'SE'] as const)[i % 5] as ItemCount['verdict']),
    );

    expect(counted.every(Boolean)).toBe(true);
    expect(h.transactions().length).toBe(2);
    expect(await h.ledger.getRun('r1')).toMatchObject({ recorded: 150, verdicts: { OK: 30, WA: 30, TLE: 30, RE: 30, SE: 30 } });
  });

  it("moves a batch-counted item's verdict with reviseItem: the run's totals stay exact though another shard counted it", async () => {
    const h = await harness();
    // t1's own shard is not the first item's: its count went to t0's shard's row.
    expect(shardOf('r1/t1/0')).not.toBe(shardOf('r1/t0/0'));
    await h.ledger.recordItems('r1', [
      { itemId: 'r1/t0/0', verdict: 'OK' },
      { itemId: 'r1/t1/0', verdict: 'SE' },
    ]);

    expect(await h.ledger.reviseItem('r1', 'r1/t1/0', 'SE', 'WA')).toBe(true);

    const run = await h.ledger.getRun('r1');
    expect(run).toMatchObject({ recorded: 2, verdicts: { OK: 1, WA: 1 } });
    expect(run?.verdicts.SE).toBeUndefined();
  });

  it('refuses a batch of a run it does not know (HarnessError), writing no item row', async () => {
    const h = await harness();
    await expect(h.ledger.recordItems('r9', [{ itemId: 'r9/t1/0', verdict: 'OK' }])).rejects.toBeInstanceOf(HarnessError);
    const row = await h.dynamo.send(
      new GetItemCommand({ TableName: h.tableName, Key: { pk: { S: shardPk('r9', shardOf('r9/t1/0')) }, sk: { S: `ITEM#r9/t1/0` } } }),
    );
    expect(row.Item).toBeUndefined();
  });
});
