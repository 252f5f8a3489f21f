/**
 * SQS standard queues as Lambda consumes them. A message body is at most the queue's
 * `MaximumMessageSize`: 262,144 bytes (256 KiB) by default, settable up to 1,048,576 bytes
 * (1 MiB); our queues keep the default. A received message is invisible for the visibility
 * timeout; one that is not deleted becomes visible again, and after `maxReceiveCount` receives
 * the redrive policy moves it to the dead-letter queue.
 * Pages: "Amazon SQS message quotas",
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html;
 * "Amazon SQS visibility timeout" and "Using dead-letter queues in Amazon SQS", SQS developer guide.
 */

export const SQS_DEFAULT_MAX_MESSAGE_BYTES = 262_144;

/** @throws Error when a body is larger than the queue takes (SQS answers InvalidParameterValue). */
export function checkMessageSize(bytes: number, max = SQS_DEFAULT_MAX_MESSAGE_BYTES): void {
  if (bytes > max) throw Object.assign(new Error(`message of ${bytes} bytes exceeds the queue's ${max}`), { name: 'InvalidParameterValue' });
}

export interface SqsMessage<T> {
  id: string;
  body: T;
  receives: number;
  visibleAt: number;
  /** Per function, how often the chain that sent it invoked it (Lambda's recursion tracking). */
  chain: Readonly<Record<string, number>>;
}

/** A standard queue: visibility and redrive to a DLQ. Visible messages are taken oldest first. */
export class SimSqsQueue<T> {
  readonly #messages: SqsMessage<T>[] = [];
  readonly dlq: SqsMessage<T>[] = [];
  #seq = 0;

  constructor(
    readonly name: string,
    readonly visibilityMs: number,
    readonly maxReceiveCount: number,
    readonly maxMessageBytes = SQS_DEFAULT_MAX_MESSAGE_BYTES,
  ) {}

  send(body: T, bytes: number, nowMs: number, chain: Readonly<Record<string, number>>): void {
    checkMessageSize(bytes, this.maxMessageBytes);
    this.#messages.push({ id: `${this.name}-${this.#seq++}`, body, receives: 0, visibleAt: nowMs, chain });
  }

  get depth(): number {
    return this.#messages.length;
  }

  /** The earliest time a message becomes visible (undefined: empty); `nowMs` as soon as one is visible by then. */
  nextVisible(nowMs = Number.NEGATIVE_INFINITY): number | undefined {
    let min: number | undefined;
    for (const m of this.#messages) {
      if (m.visibleAt <= nowMs) return nowMs;
      if (min === undefined || m.visibleAt < min) min = m.visibleAt;
    }
    return min;
  }

  /** Receives up to `max` visible messages; each is invisible until it is deleted or released. */
  receive(max: number, nowMs: number): SqsMessage<T>[] {
    const out: SqsMessage<T>[] = [];
    for (const m of this.#messages) {
      if (out.length >= max) break;
      if (m.visibleAt > nowMs) continue;
      m.receives += 1;
      m.visibleAt = nowMs + this.visibilityMs;
      out.push(m);
    }
    return out;
  }

  delete(message: SqsMessage<T>): void {
    const i = this.#messages.indexOf(message);
    if (i >= 0) this.#messages.splice(i, 1);
  }

  /** A message not deleted: visible again at its visibility timeout, or to the DLQ once received maxReceiveCount times. */
  fail(message: SqsMessage<T>): void {
    if (message.receives >= this.maxReceiveCount) {
      this.delete(message);
      this.dlq.push(message);
    }
  }

  /** A message Lambda will not deliver at all (recursion detection): straight to the DLQ. */
  deadLetter(message: SqsMessage<T>): void {
    this.delete(message);
    this.dlq.push(message);
  }
}
