// DynamoRunLedger behaviour beyond the shared contract: the table layout it writes and
// the faults it reports.
import { DeleteItemCommand, DynamoDBClient, GetItemCommand, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessError } from '#core/errors.ts';
import { DynamoRunLedger } from '#aws/index.ts';
import { LEDGER_SHARDS, shardOf, shardPk } from '#aws/dynamo-ledger-schema.ts';
import { awsClientConfig, createLedgerTable, startMoto, type Moto } from '../../support/moto.ts';

let moto: Moto;
let dynamo: DynamoDBClient;
let tables = 0;
const CLOCK = new Date('2025-03-04T05:06:07.000Z');

beforeAll(async () => {
  // Serialized: threaded moto breaks the atomicity of concurrent transactions (see startMoto).
  moto = await startMoto({ serialized: true });
  dynamo = new DynamoDBClient(awsClientConfig(moto.endpoint));
});

afterAll(async () => {
  dynamo?.destroy();
  await moto?.stop();
});

async function newLedger(): Promise<{ ledger: DynamoRunLedger; tableName: string }> {
  const tableName = `ledger-aws-${++tables}`;
  await createLedgerTable(dynamo, tableName);
  return { ledger: new DynamoRunLedger({ client: dynamo, tableName, now: () => CLOCK }), tableName };
}

const run = { runId: 'r1', benchmark: 'rocode', model: 'bedrock:m', status: 'planned' as const, items: 2, createdAt: '2025-03-04T00:00:00.000Z' };

describe('DynamoRunLedger', () => {
  it("writes an item row and its shard's counters, stamped by the given clock", async () => {
    const { ledger, tableName } = await newLedger();
    await ledger.createRun(run);

    await ledger.recordItem('r1', 'r1/sum/0', 'TLE');

    const pk = { S: shardPk('r1', shardOf('r1/sum/0')) };
    const item = await dynamo.send(new GetItemCommand({ TableName: tableName, Key: { pk, sk: { S: 'ITEM#r1/sum/0' } } }));
    const count = await dynamo.send(new GetItemCommand({ TableName: tableName, Key: { pk, sk: { S: 'COUNT' } } }));
    const runRow = await dynamo.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: 'RUN#r1' }, sk: { S: 'RUN' } } }));
    expect(item.Item?.verdict?.S).toBe('TLE');
    expect(count.Item?.recorded?.N).toBe('1');
    expect(count.Item?.verdict_TLE?.N).toBe('1');
    expect(count.Item?.updatedAt?.S).toBe(CLOCK.toISOString());
    expect(runRow.Item?.recorded?.N).toBe('0');
    expect(runRow.Item?.shards?.N).toBe(String(LEDGER_SHARDS));
  });

  it("books an uncapped call's cost on its booking's shard, next to a booking row, once; a capped one on the cost row", async () => {
    const { ledger, tableName } = await newLedger();
    await ledger.createRun(run);

    await Promise.all([ledger.addCost('r1', 0.5, 'r1/sum/0/settle'), ledger.addCost('r1', 0.5, 'r1/sum/0/settle')]);
    await ledger.trySpend('r1', 0.25, 1, 'r1/sum/1/reserve');
    await ledger.trySpend('r1', 0.25, 1, 'r1/sum/1/reserve');

    const pk = { S: shardPk('r1', shardOf('r1/sum/0/settle')) };
    const booking = await dynamo.send(new GetItemCommand({ TableName: tableName, Key: { pk, sk: { S: 'BOOK#r1/sum/0/settle' } } }));
    const count = await dynamo.send(new GetItemCommand({ TableName: tableName, Key: { pk, sk: { S: 'COUNT' } } }));
    const cost = await dynamo.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: 'RUN#r1' }, sk: { S: 'COST' } } }));
    expect(booking.Item?.usd?.N).toBe('0.5');
    expect(count.Item?.costUsd?.N).toBe('0.5');
    expect(cost.Item?.costUsd?.N).toBe('0.25');
    expect((await ledger.getRun('r1'))?.costUsd).toBeCloseTo(0.75, 10);
    // Booking rows are no item rows: the recorded items stay what was recorded.
    expect(await ledger.recordedItems('r1')).toEqual(new Set());
  });

  it("spreads a run's records over its shards' partition keys, and every reader sums them", async () => {
    const { ledger, tableName } = await newLedger();
    await ledger.createRun({ ...run, items: 64 });
    const ids = Array.from({ length: 64 }, (_, i) => `r1/t${i}/0`);

    await Promise.all(ids.map((id, i) => ledger.recordItem('r1', id, i % 4 === 0 ? 'WA' : 'OK')));
    expect(await ledger.recordItem('r1', 'r1/t0/0', 'WA')).toBe(false);

    const counts = await Promise.all(
      Array.from({ length: LEDGER_SHARDS }, (_, shard) =>
        dynamo.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: shardPk('r1', shard) }, sk: { S: 'COUNT' } }, ConsistentRead: true })),
      ),
    );
    const perShard = counts.map((c) => Number(c.Item?.recorded?.N ?? 0));
    expect(perShard.filter((n) => n > 0).length).toBeGreaterThan(LEDGER_SHARDS / 2);
    expect(Math.max(...perShard)).toBeLessThan(64 / 2);
    const summary = await ledger.getRun('r1');
    expect(summary).toMatchObject({ recorded: 64, verdicts: { OK: 48, WA: 16 } });
    expect((await ledger.listRuns())[0]).toMatchObject({ recorded: 64, verdicts: { OK: 48, WA: 16 } });
    expect([...(await ledger.recordedItems('r1'))].sort()).toEqual([...ids].sort());
    expect(await ledger.reviseItem('r1', 'r1/t0/0', 'WA', 'OK')).toBe(true);
    expect((await ledger.getRun('r1'))?.verdicts).toEqual({ OK: 49, WA: 15 });
    // generate's first look (stages.ts generateWork) reads each item's row where its count put it:
    // on its shard, by recordItem or recordItems (dynamo-record-batch.ts), revised or not.
    await ledger.recordItems('r1', [{ itemId: 'r1/batched/0', verdict: 'TLE' }]);
    const seen = await Promise.all([...ids, 'r1/batched/0'].map((id) => ledger.countedVerdict('r1', id)));
    expect(seen).toEqual([...ids.map((_, i) => (i % 4 === 0 && i !== 0 ? 'WA' : 'OK')), 'TLE']);
    expect(await ledger.countedVerdict('r1', 'r1/never/0')).toBeUndefined();
    expect(await ledger.countedVerdict('unknown-run', 'unknown-run/t0/0')).toBeUndefined();
  });

  it('keeps counting a run written before shards on its run row and in its own partition', async () => {
    const { ledger, tableName } = await newLedger();
    await ledger.createRun(run);
    // As an older deployment left it: no shard count, items under RUN#<runId>, counters on the run row.
    await dynamo.send(new UpdateItemCommand({ TableName: tableName, Key: { pk: { S: 'RUN#r1' }, sk: { S: 'RUN' } }, UpdateExpression: 'REMOVE shards' }));
    const older = new DynamoRunLedger({ client: dynamo, tableName, now: () => CLOCK });

    await older.recordItem('r1', 'r1/sum/0', 'OK');
    await older.recordItem('r1', 'r1/sum/1', 'RE');

    const item = await dynamo.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: 'RUN#r1' }, sk: { S: 'ITEM#r1/sum/1' } } }));
    expect(item.Item?.verdict?.S).toBe('RE');
    expect(await older.getRun('r1')).toMatchObject({ recorded: 2, verdicts: { OK: 1, RE: 1 } });
    expect([...(await older.recordedItems('r1'))].sort()).toEqual(['r1/sum/0', 'r1/sum/1']);
    expect(await older.countedVerdict('r1', 'r1/sum/1')).toBe('RE');
    expect(await older.countedVerdict('r1', 'r1/sum/2')).toBeUndefined();
  });

  it("books cost on the run's cost row, never on the run row every record transaction holds", async () => {
    const { ledger, tableName } = await newLedger();
    await ledger.createRun(run);

    await ledger.trySpend('r1', 0.25, 1);
    await ledger.addCost('r1', 0.5);
    await ledger.recordItem('r1', 'r1/sum/0', 'OK');

    const runRow = await dynamo.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: 'RUN#r1' }, sk: { S: 'RUN' } }, ConsistentRead: true }));
    const costRow = await dynamo.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: 'RUN#r1' }, sk: { S: 'COST' } }, ConsistentRead: true }));
    expect(runRow.Item?.costUsd).toBeUndefined();
    expect(Number(costRow.Item?.costUsd?.N)).toBeCloseTo(0.75, 10);
    expect((await ledger.getRun('r1'))?.costUsd).toBeCloseTo(0.75, 10);
    expect((await ledger.listRuns())[0]?.costUsd).toBeCloseTo(0.75, 10);
  });

  it('keeps counting the spend of a run created before cost rows (its old total on the run row)', async () => {
    const { ledger, tableName } = await newLedger();
    await ledger.createRun(run);
    // As an older deployment left it: the spend on the run row, no cost row.
    await dynamo.send(new DeleteItemCommand({ TableName: tableName, Key: { pk: { S: 'RUN#r1' }, sk: { S: 'COST' } } }));
    await dynamo.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: { pk: { S: 'RUN#r1' }, sk: { S: 'RUN' } },
        UpdateExpression: 'SET costUsd = :c',
        ExpressionAttributeValues: { ':c': { N: '0.5' } },
      }),
    );

    expect(await ledger.trySpend('r1', 0.25, 1)).toBe(true);
    await ledger.addCost('r1', 0.125);

    expect((await ledger.getRun('r1'))?.costUsd).toBeCloseTo(0.875, 10);
  });

  it('registers each run once in the RUNS partition, which item rows never touch', async () => {
    const { ledger, tableName } = await newLedger();
    await ledger.createRun(run);
    await ledger.createRun({ ...run, runId: 'r0', createdAt: '2025-03-01T00:00:00.000Z' });
    await ledger.recordItem('r1', 'r1/sum/0', 'OK');

    const registry = await dynamo.send(
      new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :runs', ExpressionAttributeValues: { ':runs': { S: 'RUNS' } } }),
    );

    expect(registry.Items?.map((row) => row.sk?.S)).toEqual(['2025-03-01T00:00:00.000Z#r0', '2025-03-04T00:00:00.000Z#r1']);
    expect((await ledger.listRuns()).map((summary) => summary.runId)).toEqual(['r0', 'r1']);
  });

  it('refuses to count an item of a run it does not know', async () => {
    const { ledger } = await newLedger();

    const recording = ledger.recordItem('ghost', 'ghost/t/0', 'OK');

    await expect(recording).rejects.toBeInstanceOf(HarnessError);
    await expect(recording).rejects.toThrow(/run ghost is not in the ledger/);
  });

  it('refuses to update a run it does not know', async () => {
    const { ledger } = await newLedger();

    await expect(ledger.setStatus('ghost', 'failed', 'x')).rejects.toBeInstanceOf(HarnessError);
    await expect(ledger.addCost('ghost', 1)).rejects.toBeInstanceOf(HarnessError);
  });

  it('sets the planned item count of an existing run', async () => {
    const { ledger } = await newLedger();
    await ledger.createRun({ ...run, items: 0 });

    await ledger.setItems('r1', 120);

    expect((await ledger.getRun('r1'))?.items).toBe(120);
    await expect(ledger.setItems('ghost', 1)).rejects.toBeInstanceOf(HarnessError);
  });

  it('clears the reason when a status is set without one', async () => {
    const { ledger } = await newLedger();
    await ledger.createRun(run);

    await ledger.setStatus('r1', 'failed', 'executor unreachable');
    await ledger.setStatus('r1', 'running');

    expect(await ledger.getRun('r1')).not.toHaveProperty('reason');
  });

  it('trySpend adds within the cap and refuses what would pass it, the total unchanged', async () => {
    const { ledger } = await newLedger();
    await ledger.createRun(run);

    expect(await ledger.trySpend('r1', 0.6, 1)).toBe(true);
    expect(await ledger.trySpend('r1', 0.5, 1)).toBe(false);
    expect(await ledger.trySpend('r1', 0.4, 1)).toBe(true);
    expect(await ledger.trySpend('r1', 5, null)).toBe(true);

    expect((await ledger.getRun('r1'))?.costUsd).toBeCloseTo(6, 10);
  });

  it('trySpend from many concurrent callers (containers) never passes the cap', async () => {
    const { ledger, tableName } = await newLedger();
    await ledger.createRun(run);
    // Two "containers": separate ledger objects over the same table, no memory shared.
    const other = new DynamoRunLedger({ client: dynamo, tableName });

    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? ledger : other).trySpend('r1', 0.1, 1)));

    expect(results.filter(Boolean)).toHaveLength(10);
    expect((await ledger.getRun('r1'))?.costUsd).toBeLessThanOrEqual(1 + 1e-9);
  });

  it('trySpend on a run that is not in the ledger is a HarnessError', async () => {
    const { ledger } = await newLedger();
    await expect(ledger.trySpend('nope', 0.1, 1)).rejects.toBeInstanceOf(HarnessError);
  });
});
