/**
 * WorkQueue in memory, with the semantics of the cloud queue: at-least-once delivery, a
 * throwing handler means redelivery (attempt + 1), and after `maxAttempts` the message
 * goes to `deadLetters`. `capacity` bounds the queue: `send` waits for room, which gives
 * backpressure between stages.
 */
import type { QueueMessage, WorkQueue } from '#core/ports.ts';
import { turnWhenDue } from './event-loop-turn.ts';

export interface InProcessWorkQueueOptions {
  maxAttempts?: number;
  capacity?: number;
}

export class InProcessWorkQueue<T> implements WorkQueue<T> {
  readonly deadLetters: { message: QueueMessage<T>; error: unknown }[] = [];
  private readonly items: QueueMessage<T>[] = [];
  private readonly maxAttempts: number;
  private readonly capacity: number;
  private closed = false;
  private inFlight = 0;
  private wakeConsumers: (() => void)[] = [];
  private wakeSenders: (() => void)[] = [];

  constructor(opts: InProcessWorkQueueOptions = {}) {
    this.maxAttempts = opts.maxAttempts ?? 3;
    this.capacity = opts.capacity ?? Number.POSITIVE_INFINITY;
  }

  get size(): number {
    return this.items.length;
  }

  async send(messages: { id: string; body: T }[]): Promise<void> {
    for (const m of messages) {
      while (this.items.length >= this.capacity) await new Promise<void>((r) => this.wakeSenders.push(r));
      this.items.push({ id: m.id, body: m.body, attempt: 1 });
      this.notify();
    }
  }

  close(): void {
    this.closed = true;
    this.notify();
  }

  private notify(): void {
    const consumers = this.wakeConsumers;
    this.wakeConsumers = [];
    consumers.forEach((wake) => wake());
  }

  private notifySenders(): void {
    const senders = this.wakeSenders;
    this.wakeSenders = [];
    senders.forEach((wake) => wake());
  }

  private async next(): Promise<QueueMessage<T> | undefined> {
    for (;;) {
      const message = this.items.shift();
      if (message) {
        this.notifySenders();
        return message;
      }
      // Done only when closed, empty and nothing in flight could be redelivered.
      if (this.closed && this.inFlight === 0) return undefined;
      await new Promise<void>((r) => this.wakeConsumers.push(r));
    }
  }

  async consume(handler: (message: QueueMessage<T>) => Promise<void>, options: { concurrency: number }): Promise<void> {
    const worker = async (): Promise<void> => {
      for (;;) {
        // Messages are handed over as microtasks: between them the event loop gets its turn
        // every few ms, so a run that needs no I/O never holds up the rest of the process.
        await turnWhenDue();
        const message = await this.next();
        if (!message) return;
        this.inFlight++;
        try {
          await handler(message);
        } catch (error) {
          if (message.attempt >= this.maxAttempts) this.deadLetters.push({ message, error });
          else this.items.push({ ...message, attempt: message.attempt + 1 });
        } finally {
          this.inFlight--;
          this.notify();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  }
}
