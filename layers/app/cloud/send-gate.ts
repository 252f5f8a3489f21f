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
 * is not done, and a failed send fails exactly the handlers whose messages it carried (their
 * records come back and are generated again; a recorded item is skipped, stages.ts).
 */
import type { WorkQueue } from '#core/ports.ts';

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
    // A handler waits on one send at a time (generate's routeGenerated sends once).
    if (this.#waiting.length === 0 || this.#waiting.length < this.#running) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    const byQueue = new Map<Sender<unknown>, Waiting[]>();
    for (const w of waiting) byQueue.set(w.queue, [...(byQueue.get(w.queue) ?? []), w]);
    for (const [queue, group] of byQueue) {
      queue.send(group.flatMap((w) => w.messages)).then(
        () => group.forEach((w) => w.resolve()),
        (error: unknown) => group.forEach((w) => w.reject(error)),
      );
    }
  }
}
