/**
 * Whether a runner's asynchronous events may still wait in Lambda's own queue: the watchdog's
 * check before it closes a stalled run (watchdog.ts). The Lambda judge hands each program to its
 * runner with an asynchronous Invoke and deletes its SQS message; until the runner's record lands
 * on its answers queue (a watched queue), the item is in no SQS queue, only in Lambda's.
 *
 * What AWS documents (read 2026-12-07):
 * - "How Lambda handles errors and retries with asynchronous invocation"
 *   (docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html): a throttled
 *   event (429, no concurrency) or one met by a system error (5xx) goes back to the queue and is
 *   tried again for up to 6 hours by default, the interval growing from 1 second to 5 minutes,
 *   longer still when the queue holds many entries.
 * - "Configuring error handling settings for Lambda asynchronous invocations"
 *   (invocation-async-configuring.html): MaximumEventAgeInSeconds is how long Lambda keeps an
 *   event before discarding it (at most 6 hours; the runners keep it that long, infra/runners.ts
 *   RUNNER_MAX_EVENT_AGE); a discarded event goes to the on-failure destination — the runner's
 *   answers queue — so once an event is past its age, the watched queues see it.
 * - "Types of metrics for Lambda functions" (monitoring-metrics-types.html, asynchronous
 *   invocation metrics): `AsyncEventsReceived` counts the events Lambda successfully queues;
 *   `AsyncEventAge` is the time from queueing to invocation, emitted when an event is invoked;
 *   `AsyncEventsDropped` counts the events dropped without running. No metric tells how many
 *   events are in the queue now, and `Throttles` does not say which invocations were asynchronous.
 * - GetMetricData (CloudWatch API reference, MetricDataResult): a metric with nothing emitted in
 *   the range comes back with no values (not a zero); `StatusCode` is `Complete` only when every
 *   data point of the range was returned (`PartialData`, `InternalError`, `Forbidden` otherwise).
 *
 * The signal, sound rather than precise: an event received at `t` has left Lambda's queue by
 * `t + maxEventAge` (run, or discarded to the answers queue), and its run has ended — its record
 * sent — by `t + maxEventAge + timeout`. So if no runner received an asynchronous event during
 * the last maxEventAge + timeout, nothing can wait in any runner's queue or run; otherwise
 * something may, and stalled runs wait. Counting events in and out (received − invoked − dropped)
 * would be more precise but is not sound: Lambda may run one event more than once ("the queue
 * itself is eventually consistent"), and events received before the window may leave inside it.
 * The cost: a stalled run is closed no sooner than maxEventAge + timeout (6 h 15 min) after the
 * last runner event of the whole deployment (docs/aws.md, the watchdog, says why a tighter rule
 * built on `Throttles` is not sound: system errors and slow reads of a long queue show in no metric).
 * Metric data points for the last minute or two may not be published yet when the watchdog reads
 * them: before closing, it waits and asks again (watchdog.ts `settle`).
 */

/** One runner's `AsyncEventsReceived` as GetMetricData returns it: per-period sums, each at its period's start. */
export interface AsyncEventsReading {
  functionName: string;
  points: readonly { at: Date; count: number }[];
  /** Every data point of the range was returned (StatusCode `Complete`). */
  complete: boolean;
}

/** How long an event can be in a runner's hands after Lambda received it. */
export interface RunnerEventWindow {
  /** The runners' MaximumEventAgeInSeconds (infra/runners.ts RUNNER_MAX_EVENT_AGE). */
  maxEventAgeMs: number;
  /** The runners' timeout (infra/runners.ts RUNNER_TIMEOUT). */
  timeoutMs: number;
  /** The period of the data points (a point at `at` counts events up to `at + periodMs`). */
  periodMs: number;
}

/** How far back the watchdog must read `AsyncEventsReceived`: maxEventAge + timeout, and one period for the point that straddles the start. */
export function lookbackMs(window: RunnerEventWindow): number {
  return window.maxEventAgeMs + window.timeoutMs + window.periodMs;
}

/** Why stalled runs must wait (an event may still wait in a runner's queue or run), or undefined when none can. */
export function runnerEventsWaitReason(readings: readonly AsyncEventsReading[], now: Date, window: RunnerEventWindow): string | undefined {
  const reasons: string[] = [];
  for (const reading of readings) {
    if (!reading.complete) {
      reasons.push(`${reading.functionName}'s AsyncEventsReceived came back incomplete from CloudWatch: its events may still wait`);
      continue;
    }
    const received = reading.points.filter((p) => p.count > 0);
    if (received.length === 0) continue;
    const last = Math.max(...received.map((p) => p.at.getTime()));
    const until = last + window.periodMs + window.maxEventAgeMs + window.timeoutMs;
    if (until <= now.getTime()) continue;
    const count = received.reduce((sum, p) => sum + p.count, 0);
    reasons.push(
      `${reading.functionName} received ${count} asynchronous event(s), the last before ${new Date(last + window.periodMs).toISOString()}: ` +
        `one may wait in Lambda's queue (throttled) for up to ${hours(window.maxEventAgeMs)} and then run for up to ${hours(window.timeoutMs)}, ` +
        `until ${new Date(until).toISOString()}`,
    );
  }
  return reasons.length === 0 ? undefined : reasons.join('; ');
}

function hours(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  return minutes % 60 === 0 ? `${minutes / 60} h` : minutes > 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
}
