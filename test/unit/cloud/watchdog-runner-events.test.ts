// The watchdog leaves a stalled run open while a runner may still hold one of its asynchronous
// events (layers/app/cloud/runner-events.ts): an item handed to a throttled runner waits in
// Lambda's queue, in no SQS queue, for up to the event's maximum age (6 h), then runs for up to
// the runner's timeout. Once no runner received an event for that long, it closes as before.
import type { CloudWatchClient, GetMetricDataCommand, GetMetricDataCommandOutput } from '@aws-sdk/client-cloudwatch';
import { describe, expect, it } from 'vitest';
import { readAsyncEventsReceived } from '#aws/lambda-async-events.ts';
import { createWatchdogDeps } from '../../../functions/watchdog/deps.ts';
import type { RunLedger, RunSummary } from '#core/ports.ts';
import { lookbackMs, runnerEventsWaitReason, type AsyncEventsReading, type RunnerEventWindow } from '#app/cloud/runner-events.ts';
import { watchRuns, type WatchdogDeps } from '#app/cloud/watchdog.ts';

const NOW = new Date('2026-12-07T12:00:00Z');
const MINUTE = 60_000;
const WINDOW: RunnerEventWindow = { maxEventAgeMs: 6 * 60 * MINUTE, timeoutMs: 15 * MINUTE, periodMs: MINUTE };
const stalledRun = { runId: 'r-stalled', status: 'running', items: 10, recorded: 7, updatedAt: '2026-12-07T11:00:00Z' } as RunSummary;

function deps(over: Partial<WatchdogDeps> = {}): WatchdogDeps & { sent: unknown[] } {
  const sent: unknown[] = [];
  return {
    sent,
    ledger: { listRuns: () => Promise.resolve([stalledRun]) } as unknown as RunLedger,
    aggregateQueue: { send: (messages) => (sent.push(...messages), Promise.resolve()) },
    pipelineDepth: () => Promise.resolve(0),
    clock: () => NOW,
    ...over,
  };
}

/** A runner's AsyncEventsReceived with `count` events in the minute starting `minutesAgo` before now. */
const reading = (minutesAgo: number | undefined, count = 3, complete = true): AsyncEventsReading => ({
  functionName: 'runner-python',
  points: minutesAgo === undefined ? [] : [{ at: new Date(NOW.getTime() - minutesAgo * MINUTE), count }],
  complete,
});

describe('the watchdog and the runners’ asynchronous events', () => {
  it('leaves a stalled run open, saying why, while a runner may still hold an event; closes it once none can', async () => {
    const asked: Date[] = [];
    const waiting = deps({
      runnerEventsWaiting: (now) => (asked.push(now), Promise.resolve('runner-python received 3 asynchronous event(s)')),
    });
    const report = await watchRuns(waiting);
    expect(report).toEqual({ stalled: ['r-stalled'], queued: 0, actions: [], waiting: 'runner-python received 3 asynchronous event(s)' });
    expect(waiting.sent).toEqual([]);
    expect(asked).toEqual([NOW]);

    const idle = deps({ runnerEventsWaiting: () => Promise.resolve(undefined) });
    expect(await watchRuns(idle)).toMatchObject({ stalled: ['r-stalled'], actions: [{ runId: 'r-stalled', action: 'aggregate' }] });
    expect(idle.sent).toHaveLength(1);
    expect((await watchRuns(idle)).waiting).toBeUndefined();
  });

  it('asks the runners again once CloudWatch has published the minute of a hand-off, and closes only if still nothing can be held', async () => {
    // A judge handed an item off just before the queues were read empty: its AsyncEventsReceived is published only after the first read.
    let published = false;
    const asked: Date[] = [];
    let now = NOW;
    const late = deps({
      clock: () => now,
      runnerEventsWaiting: (at) => (asked.push(at), Promise.resolve(published ? 'runner-python received 1 asynchronous event(s)' : undefined)),
      settle: () => ((published = true), (now = new Date(NOW.getTime() + 3 * MINUTE)), Promise.resolve()),
    });
    expect(await watchRuns(late)).toEqual({ stalled: ['r-stalled'], queued: 0, actions: [], waiting: 'runner-python received 1 asynchronous event(s)' });
    expect(late.sent).toEqual([]);
    expect(asked).toEqual([NOW, new Date(NOW.getTime() + 3 * MINUTE)]);

    // Nothing arrives while it waits: closed, as before.
    let settled = 0;
    const quiet = deps({ runnerEventsWaiting: () => Promise.resolve(undefined), settle: () => ((settled += 1), Promise.resolve()) });
    expect((await watchRuns(quiet)).actions).toEqual([expect.objectContaining({ runId: 'r-stalled', action: 'aggregate' })]);
    expect(settled).toBe(1);
    // Waiting already on the first read: no second read, no wait.
    const busy = deps({ runnerEventsWaiting: () => Promise.resolve('x'), settle: () => ((settled += 1), Promise.resolve()) });
    expect((await watchRuns(busy)).waiting).toBe('x');
    expect(settled).toBe(1);
  });

  it('does not ask CloudWatch when nothing stalled or a queue still holds work', async () => {
    let asked = 0;
    const runnerEventsWaiting = () => ((asked += 1), Promise.resolve('x'));
    await watchRuns(deps({ runnerEventsWaiting, ledger: { listRuns: () => Promise.resolve([]) } as unknown as RunLedger }));
    await watchRuns(deps({ runnerEventsWaiting, pipelineDepth: () => Promise.resolve(4) }));
    expect(asked).toBe(0);
  });

  it('fails the tick (nothing closed) when the runners’ metrics cannot be read', async () => {
    const failing = deps({ runnerEventsWaiting: () => Promise.reject(new Error('cannot read the runners’ AsyncEventsReceived from CloudWatch: Throttling')) });
    await expect(watchRuns(failing)).rejects.toThrow(/AsyncEventsReceived/);
    expect(failing.sent).toEqual([]);
  });
});

describe('runnerEventsWaitReason', () => {
  it('waits for an event received within the maximum event age plus the runner timeout, and names when it can no longer be held', () => {
    // Received 6 h 10 min ago (the minute ending 6 h 9 min ago): it may still be running until 6 h 15 min after that minute.
    const reason = runnerEventsWaitReason([reading(370)], NOW, WINDOW);
    expect(reason).toContain('runner-python received 3 asynchronous event(s)');
    expect(reason).toContain('until 2026-12-07T12:06:00.000Z');
    // Received 6 h 16 min ago: past its age it was run or sent to the answers queue, and its run has ended.
    expect(runnerEventsWaitReason([reading(376)], NOW, WINDOW)).toBeUndefined();
  });

  it('treats no data point (nothing emitted) and zero counts as no event, and an incomplete answer as a possible one', () => {
    expect(runnerEventsWaitReason([reading(undefined)], NOW, WINDOW)).toBeUndefined();
    expect(runnerEventsWaitReason([reading(5, 0)], NOW, WINDOW)).toBeUndefined();
    expect(runnerEventsWaitReason([reading(undefined, 0, false)], NOW, WINDOW)).toMatch(/incomplete/);
  });

  it('reads far enough back to see an event that can still be held', () => {
    expect(lookbackMs(WINDOW)).toBe((6 * 60 + 15 + 1) * MINUTE);
  });
});

describe('readAsyncEventsReceived (the watchdog’s CloudWatch read)', () => {
  /** A CloudWatch client answering GetMetricData with `pages` in turn, the requests kept. */
  const client = (pages: GetMetricDataCommandOutput[]) => {
    const requests: GetMetricDataCommand['input'][] = [];
    return {
      requests,
      send: (command: GetMetricDataCommand) => (requests.push(command.input), Promise.resolve(pages.shift() ?? ({} as GetMetricDataCommandOutput))),
    };
  };

  it('asks Sum per minute of AWS/Lambda AsyncEventsReceived per function from a minute boundary before the lookback, following NextToken', async () => {
    const at = new Date(NOW.getTime() - 30 * MINUTE);
    const cw = client([
      { MetricDataResults: [{ Id: 'f0', StatusCode: 'PartialData', Values: [2], Timestamps: [at] }], NextToken: 'more', $metadata: {} },
      { MetricDataResults: [{ Id: 'f0', StatusCode: 'Complete', Values: [1], Timestamps: [new Date(at.getTime() + MINUTE)] }], $metadata: {} },
    ]);
    const readings = await readAsyncEventsReceived(cw as unknown as CloudWatchClient, ['runner-python'], NOW, lookbackMs(WINDOW));
    expect(readings).toEqual([
      {
        functionName: 'runner-python',
        complete: true,
        points: [
          { at, count: 2 },
          { at: new Date(at.getTime() + MINUTE), count: 1 },
        ],
      },
    ]);
    expect(cw.requests[0]).toMatchObject({
      StartTime: new Date(NOW.getTime() - lookbackMs(WINDOW)),
      MetricDataQueries: [
        {
          Id: 'f0',
          MetricStat: {
            Metric: { Namespace: 'AWS/Lambda', MetricName: 'AsyncEventsReceived', Dimensions: [{ Name: 'FunctionName', Value: 'runner-python' }] },
            Period: 60,
            Stat: 'Sum',
          },
        },
      ],
    });
    expect(cw.requests[1]).toMatchObject({ NextToken: 'more' });
  });

  it('reports a result CloudWatch left incomplete, and a failed read as an error naming the metric', async () => {
    const partial = client([{ MetricDataResults: [{ Id: 'f0', StatusCode: 'InternalError', Values: [], Timestamps: [] }], $metadata: {} }]);
    const [reading] = await readAsyncEventsReceived(partial as unknown as CloudWatchClient, ['runner-cpp'], NOW, lookbackMs(WINDOW));
    expect(reading?.complete).toBe(false);
    expect(runnerEventsWaitReason(reading ? [reading] : [], NOW, WINDOW)).toMatch(/runner-cpp.*incomplete/);
    const failing = { send: () => Promise.reject(Object.assign(new Error('denied'), { name: 'AccessDenied' })) };
    await expect(readAsyncEventsReceived(failing as unknown as CloudWatchClient, ['runner-cpp'], NOW, lookbackMs(WINDOW))).rejects.toThrow(
      /AsyncEventsReceived.*AccessDenied/,
    );
  });
});

describe('the watchdog function’s runner settings', () => {
  it('refuses a runner event age or timeout that is not a whole number of seconds, naming the variable', () => {
    const env = { TABLE_NAME: 't', AGGREGATE_QUEUE_URL: 'http://q/a', WATCHED_QUEUE_URLS: 'http://q/w', RUNNER_FUNCTION_NAMES: 'runner-python' };
    expect(() => createWatchdogDeps({ ...env, RUNNER_MAX_EVENT_AGE_SECONDS: '6h', RUNNER_TIMEOUT_SECONDS: '900' })).toThrow(
      /RUNNER_MAX_EVENT_AGE_SECONDS must be a whole number of seconds above 0, not "6h"/,
    );
    expect(() => createWatchdogDeps({ ...env, RUNNER_MAX_EVENT_AGE_SECONDS: '21600' })).toThrow(/RUNNER_TIMEOUT_SECONDS/);
    expect(createWatchdogDeps({ ...env, RUNNER_MAX_EVENT_AGE_SECONDS: '21600', RUNNER_TIMEOUT_SECONDS: '900' }).runnerEventsWaiting).toBeTypeOf('function');
    expect(createWatchdogDeps({ ...env, RUNNER_FUNCTION_NAMES: '' }).runnerEventsWaiting).toBeUndefined();
  });
});
