/**
 * The work queues' alarms, kept by the run watchdog instead of CloudWatch (docs/aws.md "Alarms"):
 * CloudWatch bills $0.10 a month per alarm metric, and two alarms per work queue (DLQ depth,
 * oldest-message age) were most of a deployed stack's idle bill. The watchdog already runs every
 * 15 minutes and reads queue depths; each tick it reads every work queue and DLQ once
 * (GetQueueAttributes) and the work queues' oldest-message ages (one GetMetricData), compares with the state it left last time (one DynamoDB item) and tells
 * the alarm topic of each *transition* only — into ALARM and back to OK — so a stuck queue is
 * told once, not every tick.
 *
 * - Dead letters: the DLQ holds at least one message (visible or in flight) — what the CloudWatch
 *   alarm on `ApproximateNumberOfMessagesVisible` ≥ 1 said.
 * - Age: the oldest message of the work queue has been older than its `maxAge` for 15 minutes —
 *   what the CloudWatch alarm said (ApproximateAgeOfOldestMessage, Maximum per 5 minutes, over
 *   `maxAge` in 3 periods out of 3). SQS's GetQueueAttributes has no such age, and receiving a work
 *   queue's message to read its `SentTimestamp` would count towards its `maxReceiveCount`, so the
 *   watchdog reads the metric SQS publishes to CloudWatch (GetMetricData, one metric per queue a
 *   tick: $0.01 per 1,000, priced in idle-cost.ts): in ALARM when every 5-minute period of the last
 *   15 minutes that SQS reported was over `maxAge`; no period reported is not breaching (as the
 *   CloudWatch alarm's missing data). A long run that keeps a queue fed while it drains does not
 *   alarm; a message waiting longer than `maxAge` does.
 */

/** One work queue as read this tick. */
export interface QueueReading {
  /** The queue's name in the stack (plan, generate, aggregate, execute-<image>, fargate-<image>). */
  name: string;
  /** Visible + in flight + delayed messages of the work queue. */
  depth: number;
  /** Visible + in flight messages of its dead-letter queue. */
  deadLettered: number;
  /** Its age threshold, ms (infra/queues.ts, executors.ts, fargate-lane.ts); none for a queue without an age alarm (a runner's answers queue). */
  maxAgeMs?: number;
  /**
   * Its oldest message's age, ms, over the last 15 minutes: the least of the 5-minute maxima SQS
   * reported (so over `maxAgeMs` only when every one was); absent when none was reported.
   */
  oldestAgeMs?: number;
}

/** What the watchdog remembers of one queue between ticks. */
export interface QueueWatch {
  /** Whether the dead-letter alarm is in ALARM. */
  deadLetters?: boolean;
  /** Whether the age alarm is in ALARM. */
  aged?: boolean;
}

export type QueueAlarmState = Record<string, QueueWatch>;

/** One alarm transition, as told to the alarm topic. */
export interface QueueAlert {
  queue: string;
  alarm: 'dead_letters' | 'age';
  state: 'ALARM' | 'OK';
  /** The text a user reads in the notification. */
  message: string;
}

/** Where the watchdog keeps {@link QueueAlarmState} between ticks. */
export interface QueueAlarmStore {
  load(): Promise<QueueAlarmState>;
  save(state: QueueAlarmState): Promise<void>;
}

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m >= 120 && m % 60 === 0 ? `${m / 60} hours` : `${m} minutes`;
}

/** The new state and the transitions from `previous` to what `readings` show at `now`. */
export function evaluateQueues(readings: readonly QueueReading[], previous: QueueAlarmState, now: Date): { state: QueueAlarmState; alerts: QueueAlert[] } {
  const state: QueueAlarmState = {};
  const alerts: QueueAlert[] = [];
  for (const r of readings) {
    const before = previous[r.name] ?? {};
    const deadLetters = r.deadLettered > 0;
    const aged = r.maxAgeMs !== undefined && r.oldestAgeMs !== undefined && r.oldestAgeMs > r.maxAgeMs;
    if (deadLetters !== (before.deadLetters ?? false)) {
      alerts.push({
        queue: r.name,
        alarm: 'dead_letters',
        state: deadLetters ? 'ALARM' : 'OK',
        message: deadLetters
          ? `ALARM: ${r.deadLettered} message(s) in the dead-letter queue of ${r.name}: inspect them, then \`polyeval remote redrive <run>\`.`
          : `OK: the dead-letter queue of ${r.name} is empty again.`,
      });
    }
    if (aged !== (before.aged ?? false)) {
      alerts.push({
        queue: r.name,
        alarm: 'age',
        state: aged ? 'ALARM' : 'OK',
        message: aged
          ? `ALARM: the oldest message of ${r.name} has been older than ${minutes(r.maxAgeMs ?? 0)} for 15 minutes (${minutes(r.oldestAgeMs ?? 0)} at ${now.toISOString()}; ${r.depth} queued): its consumer is stuck or capped too low.`
          : `OK: no message of ${r.name} is older than ${minutes(r.maxAgeMs ?? 0)} any more.`,
      });
    }
    const watch: QueueWatch = { ...(deadLetters ? { deadLetters } : {}), ...(aged ? { aged } : {}) };
    if (Object.keys(watch).length > 0) state[r.name] = watch;
  }
  return { state, alerts };
}

/** Same state (keys and values), whatever the key order. */
export function sameState(a: QueueAlarmState, b: QueueAlarmState): boolean {
  const norm = (s: QueueAlarmState): string =>
    JSON.stringify(
      Object.keys(s)
        .sort()
        .map((k) => [k, s[k]?.deadLetters ?? false, s[k]?.aged ?? false]),
    );
  return norm(a) === norm(b);
}

/** The EventBridge `detail-type` of a queue alarm transition (source `polyeval`); infra/watchdog.ts routes it to the alarm topic. */
export const QUEUE_ALARM_DETAIL_TYPE = 'QueueAlarm';
