/**
 * The work queues' alarms, kept by the run watchdog instead of CloudWatch (docs/aws.md "Alarms"):
 * CloudWatch bills $0.10 a month per alarm metric, and two alarms per work queue (DLQ depth,
 * oldest-message age) were most of a deployed stack's idle bill. The watchdog already runs every
 * 15 minutes and reads queue depths; each tick it reads every work queue and DLQ once
 * (GetQueueAttributes), compares with the state it left last time (one DynamoDB item) and tells
 * the alarm topic of each *transition* only — into ALARM and back to OK — so a stuck queue is
 * told once, not every tick.
 *
 * - Dead letters: the DLQ holds at least one message (visible or in flight) — what the CloudWatch
 *   alarm on `ApproximateNumberOfMessagesVisible` ≥ 1 said.
 * - Age: SQS's GetQueueAttributes has no oldest-message age (`ApproximateAgeOfOldestMessage` is a
 *   CloudWatch metric only; reading it with GetMetricData bills per metric requested), and
 *   receiving a work queue's message to read its `SentTimestamp` would count towards its
 *   `maxReceiveCount` and could dead-letter it. So the watchdog keeps, per queue, since when it
 *   has held messages without once being seen empty (`busySince`). A message older than `maxAge`
 *   means the queue has not been empty for `maxAge`, so every case the CloudWatch alarm caught is
 *   caught (up to one tick later); a queue fed without pause for `maxAge` while it drains is told
 *   too, which the CloudWatch alarm would not have said.
 */

/** One work queue as read this tick. */
export interface QueueReading {
  /** The queue's name in the stack (plan, generate, aggregate, execute-<image>, fargate-<image>). */
  name: string;
  /** Visible + in flight + delayed messages of the work queue. */
  depth: number;
  /** Visible + in flight messages of its dead-letter queue. */
  deadLettered: number;
  /** Its age threshold, ms (infra/queues.ts, executors.ts, fargate-lane.ts). */
  maxAgeMs: number;
}

/** What the watchdog remembers of one queue between ticks. */
export interface QueueWatch {
  /** When the queue was first seen holding messages since it was last seen empty (ISO time). */
  busySince?: string;
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
    const busySince = r.depth > 0 ? (before.busySince ?? now.toISOString()) : undefined;
    const deadLetters = r.deadLettered > 0;
    const aged = busySince !== undefined && now.getTime() - Date.parse(busySince) > r.maxAgeMs;
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
          ? `ALARM: ${r.name} has held messages without emptying since ${busySince} (over ${minutes(r.maxAgeMs)}; ${r.depth} queued now): its consumer is stuck or capped too low, or a very large run is draining.`
          : `OK: ${r.name} has emptied: no message in it is older than ${minutes(r.maxAgeMs)} any more.`,
      });
    }
    const watch: QueueWatch = { ...(busySince !== undefined ? { busySince } : {}), ...(deadLetters ? { deadLetters } : {}), ...(aged ? { aged } : {}) };
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
        .map((k) => [k, s[k]?.busySince ?? null, s[k]?.deadLetters ?? false, s[k]?.aged ?? false]),
    );
  return norm(a) === norm(b);
}

/** The EventBridge `detail-type` of a queue alarm transition (source `polyeval`); infra/watchdog.ts routes it to the alarm topic. */
export const QUEUE_ALARM_DETAIL_TYPE = 'QueueAlarm';
