/**
 * One SendMessageBatch per queue for a whole SQS batch of messages (issue 35, requests per
 * item): generate used to send each item's execute message on its own (one SQS request per
 * item); its batch of 5 items now sends them in one request (SqsWorkQueue.send: 10 entries each).
 *
 * Each message handler of the batch enters the gate when it starts and leaves when it ends; the
 * batch's handlers all start at once (functions/shared/sqs-handler.ts maps the records), and
 * each awaits the ledger before it can send (stages.ts generateWork), so all have entered by
 * the first send. A
 * send waits until every handler still running is waiting on a send too (none can add to the
 * batch any more), then the gate sends each queue's waiting messages in one call and answers
 * every waiting send with its queue's outcome. A handler therefore resolves only once its
 * message is in its queue, as before: the event source mapping deletes no message whose send
 * is not done, and a failed send fails only the handlers whose own messages could not be sent
 * ({@link sendChunk}; their records come back and are generated again; a recorded item is
 * skipped, stages.ts). Sends are split within SendMessageBatch's limits ({@link sendChunks}).
 *
 * The gate holds the invocation's cost bookings too (its {@link BookingBatch}): a handler waiting
 * on its call's booking is blocked as one waiting on a send, and when every handler is, the
 * bookings go to the ledger first, the sends once the handlers they freed are waiting again.
 */
import type { WorkQueue } from '#core/ports.ts';
import type { BookingBatch } from './booking-batch.ts';

type Sender<T> = Pick<WorkQueue<T>, 'send'>;
type Messages = Parameters<Sender<unknown>['send']>[0];

interface Waiting {
  queue: Sender<unknown>;
  messages: Messages;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class SendGate {
  #running = 0;
  #waiting: Waiting[] = [];
  /** The invocation's cost bookings (booking-batch.ts), held like its sends and sent before them. */
  readonly bookings: BookingBatch | undefined;

  constructor(bookings?: BookingBatch) {
    this.bookings = bookings;
    bookings?.attach(() => this.#flushIfBlocked());
  }

  /** Runs one message's handler inside the gate. */
  async run<R>(handler: () => Promise<R>): Promise<R> {
    this.#running += 1;
    try {
      return await handler();
    } finally {
      this.#running -= 1;
      this.#flushIfBlocked();
    }
  }

  /** `queue`, its sends held until the batch's handlers are all waiting or done. */
  sender<T>(queue: Sender<T>): Sender<T> {
    return {
      send: (messages) =>
        new Promise<void>((resolve, reject) => {
          this.#waiting.push({ queue: queue as Sender<unknown>, messages, resolve, reject });
          this.#flushIfBlocked();
        }),
    };
  }

  /** Each sender of `queues` held by this gate. */
  senders<T>(queues: Readonly<Record<string, Sender<T>>>): Record<string, Sender<T>> {
    return Object.fromEntries(Object.entries(queues).map(([name, queue]) => [name, this.sender(queue)]));
  }

  #flushIfBlocked(): void {
    // A handler waits on one send or one booking at a time (generate's routeGenerated sends once, after its call's booking).
    const bookings = this.bookings?.waiting ?? 0;
    const held = this.#waiting.length + bookings;
    if (held === 0 || held < this.#running) return;
    // Bookings first: an item's execute message leaves only once its call is booked (booking-batch.ts);
    // the handlers they free then send, and the sends go out once every handler waits again.
    if (bookings > 0) return this.bookings?.flush();
    const waiting = this.#waiting;
    this.#waiting = [];
    const byQueue = new Map<Sender<unknown>, Waiting[]>();
    for (const w of waiting) byQueue.set(w.queue, [...(byQueue.get(w.queue) ?? []), w]);
    for (const [queue, group] of byQueue) for (const chunk of sendChunks(group)) void sendChunk(queue, chunk);
  }
}

/**
 * SendMessageBatch's limits: at most 10 entries, and the sum of the messages' sizes at most
 * 256 KiB, 262,144 bytes (SQS API reference, SendMessageBatch; a queue created since 2025's
 * raise takes 1 MiB, ours may predate it: messages.ts). A message's size counts its body and
 * its attributes' names, types and values ("Amazon SQS message quotas"); the id attribute is
 * counted with a margin. SqsWorkQueue.send splits by 10 only, so the gate splits by bytes too:
 * five generated items of up to MAX_INLINE_BYTES (200 KiB) each would otherwise be one batch
 * SQS refuses whole (BatchRequestTooLong), every time the batch came back.
 */
export const BATCH_MAX_ENTRIES = 10;
export const BATCH_MAX_BYTES = 262_144;
const ATTRIBUTE_MARGIN_BYTES = 64;

function messageBytes(message: Messages[number]): number {
  return Buffer.byteLength(JSON.stringify(message.body), 'utf8') + Buffer.byteLength(message.id, 'utf8') + ATTRIBUTE_MARGIN_BYTES;
}

/** The handlers' sends in order, in chunks within SendMessageBatch's limits (a handler's messages stay in one chunk). */
function sendChunks(group: Waiting[]): Waiting[][] {
  const chunks: Waiting[][] = [];
  let chunk: Waiting[] = [];
  let entries = 0;
  let bytes = 0;
  for (const w of group) {
    const n = w.messages.length;
    const size = w.messages.reduce((sum, m) => sum + messageBytes(m), 0);
    if (chunk.length > 0 && (entries + n > BATCH_MAX_ENTRIES || bytes + size > BATCH_MAX_BYTES)) {
      chunks.push(chunk);
      chunk = [];
      entries = 0;
      bytes = 0;
    }
    chunk.push(w);
    entries += n;
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/**
 * Sends one chunk; when it fails and carried more than one handler's messages, each handler's
 * are sent again on their own, so one message SQS refuses (SenderFault) fails its own handler
 * only, not its batch-mates every time they come back together. An entry the failed call did
 * deliver may so be sent twice: a duplicate execute message, which the execute stage skips
 * once the item is recorded (stages.ts alreadyRecorded).
 */
async function sendChunk(queue: Sender<unknown>, chunk: Waiting[]): Promise<void> {
  try {
    await queue.send(chunk.flatMap((w) => w.messages));
    chunk.forEach((w) => w.resolve());
  } catch (error) {
    if (chunk.length === 1) return chunk[0]!.reject(error);
    await Promise.all(
      chunk.map((w) =>
        Promise.resolve()
          .then(() => queue.send(w.messages))
          .then(w.resolve, w.reject),
      ),
    );
  }
}
