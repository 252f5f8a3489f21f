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
  it('alarms once when the oldest message stayed over the threshold in every period read, and once when it no longer is', () => {
    let state: QueueAlarmState = {};
    const step = (ms: number, depth: number, oldestAgeMs?: number) => {
      const out = evaluateQueues([reading({ depth, ...(oldestAgeMs !== undefined ? { oldestAgeMs } : {}) })], state, at(ms));
      state = out.state;
      return out.alerts.map((a) => `${a.alarm}:${a.state}`);
    };
    // A long run keeps the queue fed for hours, its oldest message minutes old: no alarm.
    for (let t = 0; t < 6 * HOUR; t += 15 * 60_000) expect(step(t, 500, 4 * 60_000)).toEqual([]);
    expect(step(6 * HOUR, 5, HOUR)).toEqual([]); // exactly the threshold: not over it
    expect(step(6 * HOUR + 15 * 60_000, 5, HOUR + 60_000)).toEqual(['age:ALARM']);
    expect(state).toEqual({ generate: { aged: true } });
    expect(step(6 * HOUR + 30 * 60_000, 5, 2 * HOUR)).toEqual([]); // told once
    expect(step(6 * HOUR + 45 * 60_000, 0)).toEqual(['age:OK']); // no period reported: not breaching
    expect(state).toEqual({}); // nothing left to remember
    expect(evaluateQueues([reading({ oldestAgeMs: 2 * HOUR })], {}, at(0)).alerts[0]?.message).toBe(
      'ALARM: the oldest message of generate has been older than 60 minutes for 15 minutes (2 hours at 2026-12-06T00:00:00.000Z; 0 queued): its consumer is stuck or capped too low.',
    );
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

  it('saves no state when a transition could not be told, so the next tick tells it again', async () => {
    let saved: QueueAlarmState = {};
    let failNotify = true;
    const told: string[] = [];
    const tick = () =>
      watchRuns({
        ledger: { listRuns: () => Promise.resolve([]) } as unknown as RunLedger,
        aggregateQueue: { send: () => Promise.resolve() },
        pipelineDepth: () => Promise.resolve(0),
        clock: () => at(0),
        queueAlarms: {
          read: () => Promise.resolve([reading({ name: 'plan', deadLettered: 1 })]),
          store: { load: () => Promise.resolve(saved), save: (s) => ((saved = s), Promise.resolve()) },
          notify: (alerts) =>
            failNotify ? Promise.reject(new Error('PutEvents failed')) : (told.push(...alerts.map((a) => `${a.queue}:${a.state}`)), Promise.resolve()),
        },
      });
    await expect(tick()).rejects.toThrow('PutEvents failed');
    expect(saved).toEqual({});
    failNotify = false;
    await tick();
    expect(told).toEqual(['plan:ALARM']);
    expect(saved).toEqual({ plan: { deadLetters: true } });
    await tick();
    expect(told).toEqual(['plan:ALARM']); // told once
  });
});
