// DynamoRunLedger.addCosts on a real moto_server: a generate invocation's cost bookings in as few
// TransactWriteItems as DynamoDB allows (layers/aws/dynamo-booking-batch.ts over dynamo-once-batch.ts).
//
// moto answers a cancelled transaction as DynamoDB does: getmoto/moto @0af643a (installed 5.2.1, same
// code), moto/dynamodb/models/__init__.py DynamoDBBackend.transact_write_items evaluates every action,
// collects one (Code, Message) per action — "ConditionalCheckFailed" where a condition failed, None where
// it held — rolls the tables back and raises TransactionCanceledException, serialised by
// moto/dynamodb/exceptions.py as `CancellationReasons` in request order. moto never reports
// `TransactionConflict` (this suite serialises moto_server): the conflict tests inject DynamoDB's
// cancellation for it at the SDK client's boundary, as dynamo-record-batch.test.ts does.
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessError } from '#core/errors.ts';
import type { CostBooking } from '#core/ports.ts';
import { bookingPlace, countKeys, LEDGER_SHARDS, shardOf } from '#aws/dynamo-ledger-schema.ts';
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
const harness = (conflicts = 0): Promise<Harness> => ledgerOnMoto(moto, `bookings-${++tables}`, conflicts);

/** One settlement per item index, as the cost guard names them (`<item>/settle`); binary fractions, so sums compare exactly. */
const settlements = (ids: number[], usdOf: (i: number) => number = (i) => (i + 1) / 64): CostBooking[] =>
  ids.map((i) => ({ bookingId: `r1/t${i}/0/settle`, usd: usdOf(i) }));
const total = (bookings: CostBooking[]) => bookings.reduce((sum, b) => sum + b.usd, 0);

/** A row's attributes as DynamoDB stores them (numbers as their decimal strings). */
async function row(h: Harness, key: { pk: string; sk: string }) {
  const out = await h.dynamo.send(new GetItemCommand({ TableName: h.tableName, Key: { pk: { S: key.pk }, sk: { S: key.sk } } }));
  return out.Item;
}

describe('DynamoRunLedger.addCosts', () => {
  it("books a generate batch of 12 in ONE transaction: 12 booking rows in their own shards and ONE count row holding the sum; the run's cost exact", async () => {
    const h = await harness();
    const batch = settlements([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);

    await h.ledger.addCosts('r1', batch);

    // 13 actions: 12 booking rows and one counter (one addCost a call was 12 transactions of 2).
    expect(h.transactions()).toEqual([13]);
    expect((await h.ledger.getRun('r1'))?.costUsd).toBe(total(batch));
    for (const { bookingId, usd } of batch) expect((await row(h, bookingPlace('r1', bookingId, LEDGER_SHARDS).bookingKey))?.usd?.N).toBe(String(usd));
    const counts = await Promise.all(countKeys('r1').map((key) => row(h, key)));
    const costs = counts.map((r) => Number(r?.costUsd?.N ?? 0));
    expect(costs[shardOf('r1/t0/0/settle')]).toBe(total(batch));
    expect(costs.filter((c) => c !== 0)).toHaveLength(1);
  });

  it('books nothing twice when the same batch is delivered again (a redelivered generate batch)', async () => {
    const h = await harness();
    const batch = settlements([0, 1, 2, 3, 4]);
    await h.ledger.addCosts('r1', batch);

    await h.ledger.addCosts('r1', batch);

    expect((await h.ledger.getRun('r1'))?.costUsd).toBe(total(batch));
    // The second batch's one transaction was cancelled (every booking row existed); nothing was sent again.
    expect(h.transactions()).toEqual([6, 6]);
  });

  it('books the others of a batch with one booked before (by addCost), that one not again', async () => {
    const h = await harness();
    await h.ledger.addCost('r1', 0.5, 'r1/t2/0/settle');
    const batch = settlements([0, 1, 2, 3, 4]);

    await h.ledger.addCosts('r1', batch);

    // 0.5 once for t2, and the four others' own.
    expect((await h.ledger.getRun('r1'))?.costUsd).toBe(0.5 + total(settlements([0, 1, 3, 4])));
    // addCost's, the cancelled batch, then the four without the duplicate.
    expect(h.transactions()).toEqual([2, 6, 5]);
  });

  it('books an id repeated within the batch once (DynamoDB refuses two actions on one item)', async () => {
    const h = await harness();
    const batch = [...settlements([0, 1]), ...settlements([1])];

    await h.ledger.addCosts('r1', batch);

    expect((await h.ledger.getRun('r1'))?.costUsd).toBe(total(settlements([0, 1])));
    expect(h.transactions()).toEqual([3]);
  });

  it("adds the batch's exact decimal sum, as one ADD per booking would: 0.1 + 0.2 books 0.3", async () => {
    const h = await harness();

    await h.ledger.addCosts('r1', [
      { bookingId: 'r1/t0/0/settle', usd: 0.1 },
      { bookingId: 'r1/t1/0/settle', usd: 0.2 },
    ]);

    const counter = bookingPlace('r1', 'r1/t0/0/settle', LEDGER_SHARDS).counterKey;
    expect((await row(h, counter))?.costUsd?.N).toBe('0.3');
    expect((await h.ledger.getRun('r1'))?.costUsd).toBe(0.3);
  });

  it("splits a batch over DynamoDB's 100 actions: 150 bookings in two transactions, the cost exact", async () => {
    const h = await harness();
    const batch = settlements(Array.from({ length: 150 }, (_, i) => i));

    await h.ledger.addCosts('r1', batch);

    expect(h.transactions()).toEqual([100, 52]);
    expect((await h.ledger.getRun('r1'))?.costUsd).toBe(total(batch));
  });

  it('sends a batch again after a TransactionConflict; after 8 it fails (HarnessError) having booked nothing, and its redelivery books it once', async () => {
    const retried = await harness(2);
    await retried.ledger.addCosts('r1', settlements([0, 1, 2]));
    expect((await retried.ledger.getRun('r1'))?.costUsd).toBe(total(settlements([0, 1, 2])));

    const h = await harness(8);
    await expect(h.ledger.addCosts('r1', settlements([0, 1, 2]))).rejects.toBeInstanceOf(HarnessError);
    expect((await h.ledger.getRun('r1'))?.costUsd).toBe(0);
    await h.ledger.addCosts('r1', settlements([0, 1, 2]));
    expect((await h.ledger.getRun('r1'))?.costUsd).toBe(total(settlements([0, 1, 2])));
  });

  it('refuses a batch of a run it does not know (HarnessError), writing no booking row', async () => {
    const h = await harness();
    await expect(h.ledger.addCosts('r9', [{ bookingId: 'r9/t1/0/settle', usd: 0.5 }])).rejects.toBeInstanceOf(HarnessError);
    expect(await row(h, bookingPlace('r9', 'r9/t1/0/settle', LEDGER_SHARDS).bookingKey)).toBeUndefined();
  });
});
