// Which run and which items a dead-lettered message stands for: a stage message carries its own,
// a runner's invocation record on an answers queue (Lambda's destination record, runner-handoff.ts)
// carries each item's execute message in its hand-off(s). The watchdog counts a stalled run's
// dead-lettered items from these (their ids go to aggregate as `deadLettered`, not `lost`) and
// `remote redrive` selects a run's messages by them (run-control.ts).
import { describe, expect, it } from 'vitest';
import type { RunLedger, RunSummary } from '#core/ports.ts';
import { itemId } from '#core/run/keys.ts';
import { deadLetterOf, itemIdsOfMessage, runIdOfMessage } from '#app/cloud/run-control.ts';
import { watchRuns } from '#app/cloud/watchdog.ts';

const RUN = 'r-20261207-dlq';
const OTHER = 'r-20261207-other';

/** An execute message as generate sends it (the fields the readers use; hand-written). */
const executeMessage = (runId: string, taskId: string, sample: number) => ({
  schema_version: 1,
  item: { runId, taskId, sample, benchmark: 'sample/rocode', language: 'python' },
  code: 'print(1)',
});

const handoff = (message: object) => ({ version: 1, message, answers: [], pending: { request: 'sha', lowered: false } });

/** Lambda's destination record (the developer guide's "Capturing records of Lambda asynchronous invocations" fields). */
const record = (requestPayload: object) => ({
  version: '1.0',
  timestamp: '2026-12-07T10:00:00.000Z',
  requestContext: {
    requestId: 'req-1',
    functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:runner:$LATEST',
    condition: 'Success',
    approximateInvokeCount: 1,
  },
  requestPayload,
  responseContext: { statusCode: 200, executedVersion: '$LATEST' },
  responsePayload: { programs: [] },
});

const batchRecord = record({
  request: { version: 1, programs: [{}, {}, {}] },
  handoffs: [
    executeMessage(RUN, 't1', 0),
    executeMessage(RUN, 't1', 1),
    { pointer: { key: 'k', bytes: 300_000 }, item: executeMessage(RUN, 't2', 0).item },
  ].map(handoff),
});

describe('the run and items of a dead-lettered message', () => {
  it('reads a stage message, a pointer, a single hand-off record and every item of a batch record', () => {
    expect(runIdOfMessage(JSON.stringify(executeMessage(RUN, 't1', 0)))).toBe(RUN);
    expect(itemIdsOfMessage(JSON.stringify(executeMessage(RUN, 't1', 0)))).toEqual([itemId(RUN, 't1', 0)]);
    expect(itemIdsOfMessage(JSON.stringify({ schema_version: 1, pointer: { key: 'k', bytes: 1 }, item: executeMessage(RUN, 't3', 2).item }))).toEqual([
      itemId(RUN, 't3', 2),
    ]);

    const single = JSON.stringify(record({ request: { version: 1, runs: [] }, handoff: handoff(executeMessage(RUN, 't4', 1)) }));
    expect(runIdOfMessage(single)).toBe(RUN);
    expect(itemIdsOfMessage(single)).toEqual([itemId(RUN, 't4', 1)]);

    expect(runIdOfMessage(JSON.stringify(batchRecord))).toBe(RUN);
    expect(itemIdsOfMessage(JSON.stringify(batchRecord))).toEqual([itemId(RUN, 't1', 0), itemId(RUN, 't1', 1), itemId(RUN, 't2', 0)]);
  });

  it('gives a plan or aggregate message its run and no item, and a record that is not one of our hand-offs neither', () => {
    expect(runIdOfMessage(JSON.stringify({ schema_version: 1, runId: RUN, part: 0 }))).toBe(RUN);
    expect(itemIdsOfMessage(JSON.stringify({ schema_version: 1, runId: RUN, part: 0 }))).toEqual([]);
    const foreign = JSON.stringify(record({ anything: true }));
    expect(runIdOfMessage(foreign)).toBeUndefined();
    expect(itemIdsOfMessage(foreign)).toEqual([]);
    expect(runIdOfMessage('not json')).toBeUndefined();
    expect(itemIdsOfMessage('{"requestContext":{},"requestPayload":null}')).toEqual([]);
  });

  it("lets the watchdog close a stalled run with every item of a dead-lettered batch record listed as dead-lettered (another run's left out)", async () => {
    const now = new Date('2026-12-07T12:00:00Z');
    const stalled: RunSummary = { runId: RUN, status: 'running', items: 5, recorded: 2, updatedAt: '2026-12-07T11:00:00Z' } as RunSummary;
    const ledger = { listRuns: () => Promise.resolve([stalled]) } as unknown as RunLedger;
    const sent: unknown[] = [];
    const otherRecord = record({ request: { version: 1, runs: [] }, handoff: handoff(executeMessage(OTHER, 't9', 0)) });
    const report = await watchRuns({
      ledger,
      aggregateQueue: { send: (messages) => (sent.push(...messages.map((m) => m.body)), Promise.resolve()) },
      pipelineDepth: () => Promise.resolve(0),
      deadLetters: () => Promise.resolve([JSON.stringify(batchRecord), JSON.stringify(otherRecord)].map(deadLetterOf)),
      clock: () => now,
    });
    expect(report.actions).toEqual([{ runId: RUN, action: 'aggregate', recorded: 2, items: 5, deadLettered: 3 }]);
    expect(sent).toEqual([
      expect.objectContaining({ runId: RUN, allowMissing: true, deadLettered: [itemId(RUN, 't1', 0), itemId(RUN, 't1', 1), itemId(RUN, 't2', 0)] }),
    ]);
  });

  it('lists up to 2,000 dead-lettered ids in the aggregate message and counts more without listing them; a body that is not JSON or has no item adds none', async () => {
    const now = new Date('2026-12-07T12:00:00Z');
    const close = async (count: number) => {
      const stalled = { runId: RUN, status: 'running', items: 3_000, recorded: 0, updatedAt: '2026-12-07T11:00:00Z' } as RunSummary;
      const sent: unknown[] = [];
      const bodies = [
        'not json',
        JSON.stringify({ schema_version: 1, runId: RUN, part: 0 }),
        // The same item twice (read again, or dead-lettered from two stages) counts once.
        JSON.stringify(executeMessage(RUN, 'dup', 0)),
        JSON.stringify(executeMessage(RUN, 'dup', 0)),
        ...Array.from({ length: count - 1 }, (_, i) => JSON.stringify(executeMessage(RUN, `t${i}`, 0))),
      ];
      const report = await watchRuns({
        ledger: { listRuns: () => Promise.resolve([stalled]) } as unknown as RunLedger,
        aggregateQueue: { send: (messages) => (sent.push(...messages.map((m) => m.body)), Promise.resolve()) },
        pipelineDepth: () => Promise.resolve(0),
        deadLetters: () => Promise.resolve(bodies.map(deadLetterOf)),
        clock: () => now,
      });
      return { action: report.actions[0], listed: (sent[0] as { deadLettered?: string[] }).deadLettered };
    };
    const atCap = await close(2_000);
    expect(atCap.action).toEqual({ runId: RUN, action: 'aggregate', recorded: 0, items: 3_000, deadLettered: 2_000 });
    expect(atCap.listed).toHaveLength(2_000);
    expect(atCap.listed?.[0]).toBe(itemId(RUN, 'dup', 0));
    const over = await close(2_001);
    expect(over.action).toEqual({ runId: RUN, action: 'aggregate', recorded: 0, items: 3_000, deadLettered: 2_001 });
    expect(over.listed).toBeUndefined();
  });
});
