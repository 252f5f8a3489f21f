import { describe, expect, it } from 'vitest';
import { checkMessageSize, SimSqsQueue, SQS_DEFAULT_MAX_MESSAGE_BYTES, WORK_QUEUE_RETENTION_MS } from '../../../bench/cloud-sim/limits/sqs.ts';

describe('SQS standard queue', () => {
  it('refuses a body over 256 KiB by default', () => {
    expect(SQS_DEFAULT_MAX_MESSAGE_BYTES).toBe(262_144);
    expect(() => checkMessageSize(262_145)).toThrow(expect.objectContaining({ name: 'InvalidParameterValue' }));
  });

  it('hides a received message for the visibility timeout and redelivers it, then dead-letters it after maxReceiveCount', () => {
    const queue = new SimSqsQueue<string>('q', 1_000, 2);
    queue.send('a', 1, 0, {});
    const [first] = queue.receive(10, 0);
    expect(queue.receive(10, 999)).toEqual([]);
    queue.fail(first!);
    const [second] = queue.receive(10, 1_000);
    expect(second?.receives).toBe(2);
    queue.fail(second!);
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
