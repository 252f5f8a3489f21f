// DynamoPartCounter on a real moto_server: a part's slots are counted once each on sub-counters
// spread over the shards' partitions, and the update that fills the last one says the part is complete.
import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoPartCounter, PART_SHARDS, slotsInShard } from '#aws/dynamo-part-counter.ts';
import { shardPk } from '#aws/dynamo-ledger-schema.ts';
import { awsClientConfig, createLedgerTable, startMoto, type Moto } from '../../support/moto.ts';

let moto: Moto;
let dynamo: DynamoDBClient;
let tables = 0;

beforeAll(async () => {
  // Serialized: threaded moto breaks the atomicity of concurrent conditional writes (see startMoto).
  moto = await startMoto({ serialized: true });
  dynamo = new DynamoDBClient(awsClientConfig(moto.endpoint));
});

afterAll(async () => {
  dynamo?.destroy();
  await moto?.stop();
});

async function newCounter(): Promise<{ counter: DynamoPartCounter; tableName: string }> {
  const tableName = `parts-${++tables}`;
  await createLedgerTable(dynamo, tableName);
  return { counter: new DynamoPartCounter({ client: dynamo, tableName }), tableName };
}

describe('slotsInShard', () => {
  it('splits every size over the sub-counters exactly', () => {
    for (const size of [1, 15, 16, 17, 100, 1000]) {
      const total = Array.from({ length: PART_SHARDS }, (_, shard) => slotsInShard(size, shard)).reduce((a, b) => a + b, 0);
      expect(total, `size ${size}`).toBe(size);
    }
  });
});

describe('DynamoPartCounter', () => {
  it('says complete exactly when the last slot is counted, whatever the order, and once per slot', async () => {
    const { counter } = await newCounter();
    const size = 40;
    const order = Array.from({ length: size }, (_, i) => (i * 7) % size);

    const answers: boolean[] = [];
    for (const slot of order) answers.push(await counter.count('r1', { index: 3, slot, size }));

    expect(answers.slice(0, -1).every((a) => !a)).toBe(true);
    expect(answers.at(-1)).toBe(true);
    // A redelivered slot of the complete part says so again (its compaction message may have been lost).
    expect(await counter.count('r1', { index: 3, slot: 5, size })).toBe(true);
    // Another part of the same run is counted apart.
    expect(await counter.count('r1', { index: 4, slot: 0, size: 2 })).toBe(false);
  });

  it("spreads a part over the shards' partitions, never the run's own", async () => {
    const { counter, tableName } = await newCounter();
    for (let slot = 0; slot < 32; slot++) await counter.count('r1', { index: 0, slot, size: 32 });

    const own = await dynamo.send(
      new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'RUN#r1' } } }),
    );
    const shard = await dynamo.send(
      new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: shardPk('r1', 3) } } }),
    );
    expect(own.Items ?? []).toEqual([]);
    expect(shard.Items?.map((row) => [row.sk?.S, row.recorded?.N, row.slots?.NS?.sort()])).toEqual([['PART#00000', '2', ['19', '3']]]);
  });

  it('counts concurrent and duplicated slots once and reports the part complete at least once', async () => {
    const { counter } = await newCounter();
    const size = 48;
    const slots = [...Array.from({ length: size }, (_, i) => i), 0, 17, 47];

    const answers = await Promise.all(slots.map((slot) => counter.count('r1', { index: 0, slot, size })));

    expect(answers.some(Boolean)).toBe(true);
    expect(await counter.count('r1', { index: 0, slot: 1, size })).toBe(true);
  });
});
