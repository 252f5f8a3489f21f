import { describe, expect, it } from 'vitest';
import {
  checkMessageSize,
  SimSqsQueue,
  SQS_DEFAULT_MAX_MESSAGE_BYTES,
  SQS_LEGACY_MAX_MESSAGE_BYTES,
  SQS_MAX_IN_FLIGHT,
  SQS_MAX_VISIBILITY_MS,
  WORK_QUEUE_RETENTION_MS,
} from '../../../sim/cloud/limits/sqs.ts';

describe('SQS standard queue', () => {
  it('takes a body up to 1 MiB on a queue created now, and up to 256 KiB on one created before the 2025 raise', () => {
    expect(SQS_DEFAULT_MAX_MESSAGE_BYTES).toBe(1_048_576);
    expect(() => checkMessageSize(262_145)).not.toThrow();
    expect(() => checkMessageSize(1_048_577)).toThrow(expect.objectContaining({ name: 'InvalidParameterValue' }));
    const legacy = new SimSqsQueue<string>('old', 1_000, 5, SQS_LEGACY_MAX_MESSAGE_BYTES);
    expect(() => legacy.send('x', 262_145, 0, {})).toThrow(expect.objectContaining({ name: 'InvalidParameterValue' }));
    expect(() => legacy.send('x', 262_144, 0, {})).not.toThrow();
  });

  it('refuses the attributes CreateQueue refuses: visibility over 12 hours, retention outside 60 s to 14 days, maxReceiveCount outside 1 to 1,000', () => {
    const invalid = expect.objectContaining({ name: 'InvalidAttributeValue' });
    expect(() => new SimSqsQueue('q', SQS_MAX_VISIBILITY_MS + 1, 5)).toThrow(invalid);
    expect(() => new SimSqsQueue('q', SQS_MAX_VISIBILITY_MS, 5)).not.toThrow();
    expect(() => new SimSqsQueue('q', 1_000, 0)).toThrow(invalid);
    expect(() => new SimSqsQueue('q', 1_000, 1_001)).toThrow(invalid);
    expect(() => new SimSqsQueue('q', 1_000, 5, undefined, undefined, 59_999)).toThrow(invalid);
    expect(() => new SimSqsQueue('q', 1_000, 5, undefined, undefined, 14 * 24 * 3_600_000 + 1)).toThrow(invalid);
  });

  it('hands out nothing more while 120,000 messages are in flight, and again once one is deleted or its visibility expires', () => {
    const queue = new SimSqsQueue<number>('q', 1_000, 5);
    for (let i = 0; i < SQS_MAX_IN_FLIGHT + 2; i++) queue.send(i, 1, 0, {});
    // Ten at a time, ReceiveMessage's most.
    const taken = Array.from({ length: SQS_MAX_IN_FLIGHT / 10 }, () => queue.receive(10, 0)).flat();
    expect(taken).toHaveLength(SQS_MAX_IN_FLIGHT);
    expect(queue.inFlight).toBe(SQS_MAX_IN_FLIGHT);
    // A long poll at the limit returns no message and no error.
    expect(queue.receive(10, 10)).toEqual([]);
    expect(queue.overLimit).toBe(1);
    queue.delete(taken[0]!);
    expect(queue.receive(10, 20).map((m) => m.body)).toEqual([SQS_MAX_IN_FLIGHT]);
    // At 1,000 ms the first receive's visibility expires: only the one received at 20 ms is still in flight.
    expect(queue.receive(10, 1_000)).toHaveLength(10);
    expect(queue.inFlight).toBe(11);
  });

  it('hides a received message for the visibility timeout and redelivers it, then dead-letters it at the receive after maxReceiveCount', () => {
    const queue = new SimSqsQueue<string>('q', 1_000, 2);
    queue.send('a', 1, 0, {});
    const [first] = queue.receive(10, 0);
    expect(queue.receive(10, 999)).toEqual([]);
    queue.fail(first!);
    const [second] = queue.receive(10, 1_000);
    expect(second?.receives).toBe(2);
    queue.fail(second!);
    // Still in flight until its visibility timeout: SQS moves it when a receive would exceed maxReceiveCount.
    expect(queue.depth).toBe(1);
    expect(queue.dlq).toEqual([]);
    expect(queue.receive(10, 2_000)).toEqual([]);
    expect(queue.depth).toBe(0);
    expect(queue.dlq.map((m) => m.body)).toEqual(['a']);
  });
});

describe('SQS at-least-once delivery', () => {
  it('leaves a copy of a received message, visible at once, at the given rate', () => {
    const queue = new SimSqsQueue<string>('q', 1_000, 5, undefined, {
      rate: 0.5,
      random: (() => {
        let i = 0;
        return () => [0.1, 0.9][i++ % 2]!;
      })(),
    });
    queue.send('a', 1, 0, {});
    queue.send('b', 1, 0, {});

    expect(queue.receive(10, 0).map((m) => m.body)).toEqual(['a', 'b']);
    expect(queue.duplicated).toBe(1);
    const [copy] = queue.receive(10, 0);
    expect(copy?.body).toBe('a');
  });

  it('leaves no copy without duplicates', () => {
    const queue = new SimSqsQueue<string>('q', 1_000, 5);
    queue.send('a', 1, 0, {});
    queue.receive(10, 0);

    expect(queue.receive(10, 0)).toEqual([]);
    expect(queue.duplicated).toBe(0);
  });
});

describe('SQS standard queue at scale', () => {
  it('hands out messages in the order they became visible, a redelivered one behind those already waiting', () => {
    const queue = new SimSqsQueue<string>('q', 100, 5);
    for (const body of ['a', 'b', 'c']) queue.send(body, 1, 0, {});
    const [a] = queue.receive(1, 0);
    queue.fail(a!);

    expect(queue.receive(10, 50).map((m) => m.body)).toEqual(['b', 'c']);
    queue.send('d', 1, 60, {});
    expect(queue.receive(10, 100).map((m) => m.body)).toEqual(['d', 'a']);
  });

  it('does not hand a message to a poller whose virtual time is before its sending', () => {
    const queue = new SimSqsQueue<string>('q', 100, 5);
    queue.send('late', 1, 500, {});

    expect(queue.receive(10, 499)).toEqual([]);
    expect(queue.nextVisible(499)).toBe(500);
    expect(queue.receive(10, 500).map((m) => m.body)).toEqual(['late']);
  });

  it('deletes a message once it is older than the retention period (4 days), counted from its first send across redeliveries, and dead-letters nothing', () => {
    expect(WORK_QUEUE_RETENTION_MS).toBe(345_600_000);
    const queue = new SimSqsQueue<string>('q', 1_000, 5);
    queue.send('received once', 1, 0, {});
    queue.send('never received', 1, 0, {});
    const [taken] = queue.receive(1, 0);
    expect(taken?.body).toBe('received once');
    queue.fail(taken!);
    queue.send('fresh', 1, WORK_QUEUE_RETENTION_MS - 1, {});
    // At 4 days both early messages are gone, received once or never; the later one is delivered.
    expect(queue.receive(10, WORK_QUEUE_RETENTION_MS).map((m) => m.body)).toEqual(['fresh']);
    expect(queue.expired).toBe(2);
    expect(queue.dlq).toEqual([]);
  });
});

describe('SQS requests billed (issue 35: the simulation prices each request it makes)', () => {
  it('counts a receive that returned messages, each delete and visibility change, not an empty poll', () => {
    const q = new SimSqsQueue<string>('q', 1_000, 5);
    expect(q.receive(10, 0)).toEqual([]);
    for (let i = 0; i < 7; i++) q.send(`m${i}`, 2, 0, {});
    const got = q.receive(5, 0);
    expect(got).toHaveLength(5);
    q.changeVisibility(got[0]!.id, 500, 0);
    for (const m of got) q.delete(m);
    expect(q.requests).toEqual({ send: 0, receive: 1, delete: 5, changeVisibility: 1 });
  });

  it('simSender sends in SendMessageBatch calls of 10 (layers/aws/sqs-work-queue.ts)', async () => {
    const { simSender } = await import('../../../sim/cloud/sim-sender.ts');
    const { SimLambda } = await import('../../../sim/cloud/sim-lambda.ts');
    const { VirtualTime } = await import('../../../sim/cloud/virtual-time.ts');
    const q = new SimSqsQueue<unknown>('q', 1_000, 5);
    const sender = simSender<string>(q, new SimLambda(new VirtualTime()));
    await sender.send(Array.from({ length: 25 }, (_, i) => ({ id: `m${i}`, body: `m${i}` })));
    expect(q.requests.send).toBe(3);
    expect(q.depth).toBe(25);
  });

  it('returns at most 10 messages a receive, as ReceiveMessage does (MaxNumberOfMessages 1 to 10)', () => {
    const queue = new SimSqsQueue<number>('q', 30_000, 5);
    for (let i = 0; i < 12; i++) queue.send(i, 10, 0, {});
    expect(() => queue.receive(12, 0)).toThrow(/MaxNumberOfMessages 12 is outside 1 to 10/);
    expect(queue.receive(10, 0)).toHaveLength(10);
    expect(queue.requests.receive).toBe(1);
  });
});
