/**
 * SQS standard queues as Lambda consumes them. A message body is at most the queue's
 * `MaximumMessageSize`: "The maximum is 1,048,576 bytes (1 MiB)", which is also the default of
 * a queue created since SQS raised it from 256 KiB in 2025 (CreateQueue, SetQueueAttributes:
 * "Default: 1,048,576 bytes (1 MiB)"; @aws-sdk/client-sqs 3.1175 and aws-cdk-lib 2.276
 * QueueProps.maxMessageSizeBytes say the same). Our stack sets no size, so a queue created
 * before keeps 262,144 bytes (256 KiB) — which is why the pipeline's messages stay under
 * 200 KiB (layers/app/cloud/messages.ts MAX_INLINE_BYTES) and a queue here can be given
 * {@link SQS_LEGACY_MAX_MESSAGE_BYTES}.
 * A received message is invisible for the visibility timeout (0 to 12 hours); one that is not
 * deleted becomes visible again, and after `maxReceiveCount` receives (1 to 1,000) the redrive
 * policy moves it to the dead-letter queue. A standard queue holds "approximately 120,000
 * in-flight messages" (received, not deleted, visibility not expired); at that limit a long
 * poll, as Lambda's pollers make, "does not return an error ... it will not return any new
 * messages until the number of in-flight messages drops below the limit".
 * Pages: "Amazon SQS message quotas",
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html;
 * "Amazon SQS visibility timeout" (in-flight messages, 12 hours),
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html;
 * "Using dead-letter queues in Amazon SQS"; CreateQueue, SQS API reference.
 *
 * At-least-once delivery: "On rare occasions, one of the servers that stores a copy of a
 * message might be unavailable when you receive or delete a message. If this occurs, the copy
 * of the message isn't deleted on the server that is unavailable, and you might get that
 * message copy again when you receive messages" ("Amazon SQS standard queues", at-least-once
 * delivery). With `duplicates`, each receive leaves such a copy, visible at once, at that rate
 * (AWS gives no rate: the simulation's is an assumption, DUPLICATE_RATE).
 *
 * Retention: "By default, a message is retained for 4 days. The minimum is 60 seconds (1
 * minute). The maximum is 1,209,600 seconds (14 days)" ("Amazon SQS message quotas", above);
 * SQS deletes a message older than that, received or not, and it goes to no dead-letter queue.
 * Our work queues keep 4 days (infra/defaults/queue-defaults.ts).
 */

import { MinHeap } from '../min-heap.ts';

/** `MaximumMessageSize` of a queue created now: the default, and the most SQS allows. */
export const SQS_DEFAULT_MAX_MESSAGE_BYTES = 1_048_576;
/** `MaximumMessageSize` a queue created before 2025's raise keeps unless it is set. */
export const SQS_LEGACY_MAX_MESSAGE_BYTES = 262_144;
/** Received, not yet deleted, visibility not expired: a standard queue's ceiling. */
export const SQS_MAX_IN_FLIGHT = 120_000;
export const SQS_MAX_VISIBILITY_MS = 12 * 3_600_000;
export const SQS_MIN_RETENTION_MS = 60_000;
export const SQS_MAX_RETENTION_MS = 14 * 24 * 3_600_000;
export const SQS_MAX_RECEIVE_COUNT = 1000;
/** Entries a batch action (SendMessageBatch, DeleteMessageBatch, ChangeMessageVisibilityBatch) takes at most. */
export const SQS_BATCH_MAX = 10;
/** Assumed: the share of receives that leave a second copy of the message to be received again. */
export const DUPLICATE_RATE = 0.005;
/** Our work queues' MessageRetentionPeriod (infra/defaults/queue-defaults.ts): 4 days, SQS's default. */
export const WORK_QUEUE_RETENTION_MS = 4 * 24 * 3_600_000;

/** @throws Error when a body is larger than the queue takes (SQS answers InvalidParameterValue). */
export function checkMessageSize(bytes: number, max = SQS_DEFAULT_MAX_MESSAGE_BYTES): void {
  if (bytes > max) throw Object.assign(new Error(`message of ${bytes} bytes exceeds the queue's ${max}`), { name: 'InvalidParameterValue' });
}

export interface SqsMessage<T> {
  id: string;
  body: T;
  receives: number;
  visibleAt: number;
  /** When it was first sent: retention counts from then, across redeliveries. */
  sentAt: number;
  /** Per function, how often the chain that sent it invoked it (Lambda's recursion tracking). */
  chain: Readonly<Record<string, number>>;
}

/**
 * A standard queue: visibility and redrive to a DLQ. A standard queue keeps "best-effort
 * ordering" (SQS developer guide, "Amazon SQS standard queues"): visible messages are taken in
 * the order they became visible, so a redelivered message queues behind the ones already
 * waiting. Every message waits on a timer (its `visibleAt`, in a heap) until it is visible;
 * receive, delete and redrive are O(log n) or O(1), so a queue of 100,000 stays fast.
 */
export class SimSqsQueue<T> {
  /** Visible messages, in the order they became visible. */
  readonly #visible = new Map<string, SqsMessage<T>>();
  /** In flight, delayed or not yet visible at the poller's time. */
  readonly #hidden = new Map<string, SqsMessage<T>>();
  /** When hidden messages become visible (entries of deleted or re-hidden messages are stale). */
  readonly #timers = new MinHeap<{ at: number; message: SqsMessage<T> }>();
  readonly dlq: SqsMessage<T>[] = [];
  /** Ids of the messages in flight: received, not deleted, visibility not yet expired. */
  readonly #inFlight = new Set<string>();
  #seq = 0;

  constructor(
    readonly name: string,
    readonly visibilityMs: number,
    readonly maxReceiveCount: number,
    readonly maxMessageBytes = SQS_DEFAULT_MAX_MESSAGE_BYTES,
    /** At-least-once delivery: the share of receives that leave a copy behind, and the random numbers that pick them. */
    readonly duplicates?: { rate: number; random: () => number },
    readonly retentionMs = WORK_QUEUE_RETENTION_MS,
  ) {
    // The bounds CreateQueue and the redrive policy take (InvalidAttributeValue otherwise).
    const bad = (what: string) => Object.assign(new Error(`queue ${name}: ${what}`), { name: 'InvalidAttributeValue' });
    if (!(visibilityMs >= 0 && visibilityMs <= SQS_MAX_VISIBILITY_MS)) throw bad(`VisibilityTimeout ${visibilityMs} ms is outside 0 to 12 hours`);
    if (!(retentionMs >= SQS_MIN_RETENTION_MS && retentionMs <= SQS_MAX_RETENTION_MS))
      throw bad(`MessageRetentionPeriod ${retentionMs} ms is outside 60 s to 14 days`);
    if (!Number.isInteger(maxReceiveCount) || maxReceiveCount < 1 || maxReceiveCount > SQS_MAX_RECEIVE_COUNT)
      throw bad(`maxReceiveCount ${maxReceiveCount} is outside 1 to 1,000`);
    if (!(maxMessageBytes >= 1024 && maxMessageBytes <= SQS_DEFAULT_MAX_MESSAGE_BYTES))
      throw bad(`MaximumMessageSize ${maxMessageBytes} is outside 1 KiB to 1 MiB`);
  }

  /** Copies received again (at-least-once delivery). */
  duplicated = 0;
  /** Messages SQS deleted unreceived-to-the-end because they outlived the retention period. */
  expired = 0;
  /** Receives that got nothing because the queue had {@link SQS_MAX_IN_FLIGHT} messages in flight. */
  overLimit = 0;

  /** Messages received and neither deleted nor visible again. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * Billed requests (issue 35, sim/cloud/request-bill.ts): SendMessageBatch calls (simSender: one per
   * 10 messages, as layers/aws/sqs-work-queue.ts sends), receives that returned messages (a mapping's
   * empty polls are not counted), deletes and visibility changes.
   */
  readonly requests = { send: 0, receive: 0, delete: 0, changeVisibility: 0 };

  send(body: T, bytes: number, nowMs: number, chain: Readonly<Record<string, number>>): void {
    checkMessageSize(bytes, this.maxMessageBytes);
    // Visible from `nowMs`: a poller whose virtual time is earlier does not see it yet.
    this.#hide({ id: `${this.name}-${this.#seq++}`, body, receives: 0, visibleAt: nowMs, sentAt: nowMs, chain });
  }

  get depth(): number {
    return this.#visible.size + this.#hidden.size;
  }

  /** Messages visible at `nowMs` (a mapping's batching window waits while fewer than its batch size are). */
  visibleCount(nowMs: number): number {
    this.#reveal(nowMs);
    return this.#visible.size;
  }

  /** The earliest time a message becomes visible (undefined: empty); `nowMs` as soon as one is visible by then. */
  nextVisible(nowMs = Number.NEGATIVE_INFINITY): number | undefined {
    this.#reveal(nowMs);
    if (this.#visible.size > 0) return nowMs;
    for (let top = this.#timers.peek(); top !== undefined; top = this.#timers.peek()) {
      if (this.#live(top)) return top.at;
      this.#timers.pop();
    }
    return undefined;
  }

  /** Receives up to `max` visible messages (none while 120,000 are in flight); each is invisible until it is deleted or released. */
  receive(max: number, nowMs: number): SqsMessage<T>[] {
    // One ReceiveMessage returns at most 10 (MaxNumberOfMessages 1–10, SQS API reference): a
    // mapping's larger batch gathers several (sim-lambda.ts gatherBatch), each a billed request.
    if (!Number.isInteger(max) || max < 1 || max > SQS_BATCH_MAX)
      throw Object.assign(new Error(`MaxNumberOfMessages ${max} is outside 1 to ${SQS_BATCH_MAX}`), { name: 'InvalidParameterValue' });
    this.#reveal(nowMs);
    const room = Math.min(max, SQS_MAX_IN_FLIGHT - this.#inFlight.size);
    const out: SqsMessage<T>[] = [];
    if (room <= 0 && this.#visible.size > 0) this.overLimit += 1;
    for (const m of this.#visible.values()) {
      if (out.length >= room) break;
      if (nowMs - m.sentAt >= this.retentionMs) {
        this.#visible.delete(m.id);
        this.expired += 1;
        continue;
      }
      if (m.receives >= this.maxReceiveCount) {
        // This receive would make its ReceiveCount exceed maxReceiveCount: the redrive policy moves it instead.
        this.#visible.delete(m.id);
        this.dlq.push(m);
        continue;
      }
      out.push(m);
    }
    for (const m of out) {
      this.#visible.delete(m.id);
      m.receives += 1;
      m.visibleAt = nowMs + this.visibilityMs;
      this.#hide(m);
      this.#inFlight.add(m.id);
      if (this.duplicates !== undefined && this.duplicates.random() < this.duplicates.rate) {
        this.duplicated += 1;
        this.#hide({ ...m, id: `${this.name}-${this.#seq++}`, receives: 0, visibleAt: nowMs });
      }
    }
    if (out.length > 0) this.requests.receive += 1;
    return out;
  }

  /**
   * ChangeMessageVisibility of a message in flight (its receipt handle is its id here): hidden
   * for `ms` from `nowMs` — "the new value applies from the time of the call", 0 to 12 hours
   * (SQS API reference, ChangeMessageVisibility; InvalidParameterValue beyond it). A message not
   * in flight is refused as SQS refuses a stale receipt handle (MessageNotInflight).
   */
  changeVisibility(id: string, ms: number, nowMs: number): void {
    if (!(ms >= 0 && ms <= SQS_MAX_VISIBILITY_MS))
      throw Object.assign(new Error(`VisibilityTimeout ${ms} ms is outside 0 to 12 hours`), { name: 'InvalidParameterValue' });
    const message = this.#hidden.get(id);
    if (message === undefined || !this.#inFlight.has(id)) throw Object.assign(new Error(`message ${id} is not in flight`), { name: 'MessageNotInflight' });
    message.visibleAt = nowMs + ms;
    this.requests.changeVisibility += 1;
    this.#hide(message);
  }

  /** DeleteMessage of one message: one request. */
  delete(message: SqsMessage<T>): void {
    this.requests.delete += 1;
    this.#remove(message);
  }

  /**
   * DeleteMessageBatch: up to 10 messages a request, billed as one ("Amazon SQS batch actions",
   * SQS developer guide: batch actions "manipulate up to 10 messages with a single action", to
   * reduce costs; https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-batch-api-actions.html).
   * A Lambda event source mapping is assumed to delete a batch's processed messages so (AWS does not say; sim-lambda.ts gives the evidence).
   */
  deleteBatch(messages: readonly SqsMessage<T>[]): void {
    this.requests.delete += Math.ceil(messages.length / SQS_BATCH_MAX);
    for (const message of messages) this.#remove(message);
  }

  #remove(message: SqsMessage<T>): void {
    if (!this.#visible.delete(message.id)) this.#hidden.delete(message.id);
    this.#inFlight.delete(message.id);
  }

  /**
   * A message not deleted: it stays in flight until its visibility timeout, then is visible
   * again; "when the ReceiveCount for a message exceeds the maxReceiveCount for a queue, Amazon
   * SQS moves the message to the dead-letter queue" — at the receive after its
   * maxReceiveCount-th, not when that one fails (CreateQueue, RedrivePolicy).
   */
  fail(_message: SqsMessage<T>): void {
    // Nothing to do now: receive() moves it when it is next received.
  }

  #hide(message: SqsMessage<T>): void {
    this.#hidden.set(message.id, message);
    this.#timers.push({ at: message.visibleAt, message });
  }

  #live(timer: { at: number; message: SqsMessage<T> }): boolean {
    return this.#hidden.get(timer.message.id) === timer.message && timer.message.visibleAt === timer.at;
  }

  /** Hidden messages whose time has come become visible. */
  #reveal(nowMs: number): void {
    for (let top = this.#timers.peek(); top !== undefined && top.at <= nowMs; top = this.#timers.peek()) {
      this.#timers.pop();
      if (!this.#live(top)) continue;
      this.#hidden.delete(top.message.id);
      this.#inFlight.delete(top.message.id);
      this.#visible.set(top.message.id, top.message);
    }
  }
}
