import { describe, expect, it } from 'vitest';
import { checkMessageSize, SimSqsQueue, SQS_DEFAULT_MAX_MESSAGE_BYTES } from '../../../bench/cloud-sim/limits/sqs.ts';

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
