// Issue 35 (requests per item): the run's completion is read (getRun, a strongly consistent
// BatchGetItem of 18 ledger rows) by the record that completes its records part, not after every
// record — on the real DynamoRunLedger and DynamoPartCounter over moto_server, through the
// stages' own afterRecord. No completion is missed, whatever the order, and a redelivery of a
// complete part's item checks again (its aggregate message may have been lost).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoRunLedger } from '#aws/index.ts';
import { DynamoPartCounter } from '#aws/dynamo-part-counter.ts';
import { RunContextCache } from '#app/cloud/context.ts';
import type { AggregateMessage, CloudWorkItem } from '#app/cloud/messages.ts';
import { afterRecord, type StageDeps } from '#app/cloud/stages.ts';
import { itemId } from '#core/run/index.ts';
import { FsBlobStore } from '#local/fs-blob-store.ts';
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

const RUN = 'r1';

async function pipeline(items: number) {
  const tableName = `completion-${++tables}`;
  await createLedgerTable(dynamo, tableName);
  const ledger = new DynamoRunLedger({ client: dynamo, tableName, now: () => new Date('2026-12-07T00:00:00Z') });
  await ledger.createRun({ runId: RUN, benchmark: 'rocode', model: 'bedrock:m', status: 'running', items, createdAt: '2026-12-07T00:00:00.000Z' });
  const sent: AggregateMessage[] = [];
  // afterRecord reads no context: a store nothing is written to.
  const store = new FsBlobStore(join(tmpdir(), 'polyeval-completion-unused'));
  const deps: StageDeps = {
    contexts: new RunContextCache({ store, ledger, clock: () => new Date() }),
    ledger,
    parts: new DynamoPartCounter({ client: dynamo, tableName }),
    aggregateQueue: { send: (messages) => (sent.push(...messages.map((m) => m.body)), Promise.resolve()) },
  };
  const getRun = vi.spyOn(ledger, 'getRun');
  /** What a stage does once the item's document is stored: its ledger count, then afterRecord. */
  const record = async (item: CloudWorkItem): Promise<void> => {
    await ledger.recordItem(RUN, itemId(RUN, item.taskId, item.sample), 'OK');
    await afterRecord(deps, item);
  };
  return { deps, sent, getRun, record, ledger };
}

const item = (part: number, slot: number, size: number): CloudWorkItem => ({ runId: RUN, taskId: `t${part}`, sample: slot, part: { index: part, slot, size } });

describe('the completion check after a record', () => {
  it('reads the run once per completed part, not once per item, and sends the run to aggregate after the last part', async () => {
    const { sent, getRun, record } = await pipeline(6);
    // Two parts of three, their records interleaved.
    for (const it of [item(0, 0, 3), item(1, 0, 3), item(0, 1, 3), item(1, 1, 3), item(0, 2, 3)]) await record(it);
    expect(sent).toEqual([expect.objectContaining({ runId: RUN, part: 0 })]);
    await record(item(1, 2, 3));

    expect(sent.map((m) => m.part ?? 'run')).toEqual([0, 1, 'run']);
    // Six records, two part completions: two reads of the run's 18 ledger rows (six before the cut).
    expect(getRun).toHaveBeenCalledTimes(2);
  });

  it('misses no completion when the last ledger count comes after the last part count', async () => {
    const { deps, sent, record, ledger } = await pipeline(4);
    await record(item(0, 0, 2));
    await record(item(1, 0, 2));
    // Part 1 completes while item t0/1 is still uncounted in the ledger (its stage is between the two writes)...
    await ledger.recordItem(RUN, itemId(RUN, 't0', 1), 'OK');
    await record(item(1, 1, 2));
    expect(sent.map((m) => m.part ?? 'run')).toEqual([1, 'run']);
    // ...and the slower stage's part count completes part 0 and reads the run again: a second aggregate message is harmless (aggregate skips a completed run).
    await afterRecord(deps, item(0, 1, 2));
    expect(sent.map((m) => m.part ?? 'run')).toEqual([1, 'run', 0, 'run']);
  });

  it('checks again when an item of a complete part is redelivered (a crash lost the aggregate message)', async () => {
    const { deps, sent, getRun, record } = await pipeline(2);
    await record(item(0, 0, 2));
    // The stage that counts the last item crashes after its ledger and part counts, before the completion check.
    await deps.ledger.recordItem(RUN, itemId(RUN, 't0', 1), 'OK');
    await deps.parts.count(RUN, { index: 0, slot: 1, size: 2 });
    expect(sent).toEqual([]);

    // The redelivery finds the record stored and runs afterRecord (stages.ts alreadyRecorded): counted once, checked again.
    await afterRecord(deps, item(0, 1, 2));
    expect(sent.map((m) => m.part ?? 'run')).toEqual([0, 'run']);
    expect((await deps.ledger.getRun(RUN))?.recorded).toBe(2);
    expect(getRun).toHaveBeenCalledTimes(2);
  });

  it('checks after every record of items sent before parts existed (no part to complete)', async () => {
    const { sent, getRun, record } = await pipeline(2);
    await record({ runId: RUN, taskId: 't0', sample: 0 });
    await record({ runId: RUN, taskId: 't0', sample: 1 });
    expect(getRun).toHaveBeenCalledTimes(2);
    expect(sent).toEqual([expect.objectContaining({ runId: RUN })]);
  });
});
