// The watchdog's queue alarms (layers/app/cloud/queue-alarms.ts) as pure transitions, and the
// watchdog going on to close stalled runs when the alarms cannot be kept. The SQS/DynamoDB/
// EventBridge side runs on moto in test/integration/cloud/watchdog-alarms.test.ts.
import { describe, expect, it } from 'vitest';
import { evaluateQueues, type QueueAlarmState, type QueueReading } from '#app/cloud/queue-alarms.ts';
import { watchRuns } from '#app/cloud/watchdog.ts';
import type { RunLedger, RunSummary } from '#core/ports.ts';

const HOUR = 3_600_000;
const at = (ms: number): Date => new Date(Date.parse('2026-12-06T00:00:00Z') + ms);
const reading = (over: Partial<QueueReading>): QueueReading => ({ name: 'generate', depth: 0, deadLettered: 0, maxAgeMs: HOUR, ...over });

describe('queue alarm transitions', () => {
  it('keeps a queue busy since it was first seen holding messages, and alarms once past the threshold', () => {
    let state: QueueAlarmState = {};
    const step = (ms: number, depth: number) => {
      const out = evaluateQueues([reading({ depth })], state, at(ms));
      state = out.state;
      return out.alerts.map((a) => `${a.alarm}:${a.state}`);
    };
    expect(step(0, 5)).toEqual([]);
    expect(state['generate']?.busySince).toBe(at(0).toISOString());
    expect(step(HOUR, 3)).toEqual([]); // exactly the threshold: not over it
    expect(step(HOUR + 15 * 60_000, 2)).toEqual(['age:ALARM']);
    expect(step(HOUR + 30 * 60_000, 1)).toEqual([]);
    expect(step(HOUR + 45 * 60_000, 0)).toEqual(['age:OK']);
    expect(state).toEqual({}); // nothing left to remember
    expect(step(2 * HOUR, 4)).toEqual([]); // busy again: a new busySince
    expect(state['generate']?.busySince).toBe(at(2 * HOUR).toISOString());
  });

  it('tells dead letters with their count and the redrive command, and only the queues that changed', () => {
    const { alerts } = evaluateQueues(
      [reading({ name: 'plan', deadLettered: 2 }), reading({ name: 'aggregate' })],
      { aggregate: { deadLetters: true } },
      at(0),
    );
    expect(alerts.map((a) => [a.queue, a.alarm, a.state])).toEqual([
      ['plan', 'dead_letters', 'ALARM'],
      ['aggregate', 'dead_letters', 'OK'],
    ]);
    expect(alerts[0]?.message).toBe('ALARM: 2 message(s) in the dead-letter queue of plan: inspect them, then `polyeval remote redrive <run>`.');
  });
});

describe('the watchdog when the queue alarms fail', () => {
  it('still closes a stalled run, then throws the failure (the errors alarm; the next tick retries)', async () => {
    const run = { runId: 'r1', status: 'running', updatedAt: at(0).toISOString(), items: 3, recorded: 2 } as RunSummary;
    const ledger = { listRuns: () => Promise.resolve([run]) } as unknown as RunLedger;
    const sent: unknown[] = [];
    const tick = watchRuns({
      ledger,
      aggregateQueue: { send: (messages) => (sent.push(...messages), Promise.resolve()) },
      pipelineDepth: () => Promise.resolve(0),
      clock: () => at(HOUR),
      queueAlarms: {
        read: () => Promise.reject(new Error('SQS unavailable')),
        store: { load: () => Promise.resolve({}), save: () => Promise.resolve() },
        notify: () => Promise.resolve(),
      },
    });
    await expect(tick).rejects.toThrow('SQS unavailable');
    expect(sent).toHaveLength(1);
  });
});
