/**
 * What a stage sends to a queue: the WorkQueue port's `send`, onto a simulated SQS queue with
 * its message-size limit, stamped with the sending invocation's chain (what X-Amzn-Trace-Id
 * carries) and waking the queue's event source mapping.
 */
import type { WorkQueue } from '#core/ports.ts';
import type { SimSqsQueue } from './limits/sqs.ts';
import type { SimLambda } from './sim-lambda.ts';

export function simSender<T>(queue: SimSqsQueue<unknown>, lambda: SimLambda): Pick<WorkQueue<T>, 'send'> {
  return {
    send(messages) {
      lambda.time.assertAlive(`SQS send to ${queue.name}`);
      const now = lambda.time.now();
      const chain = lambda.time.invocation()?.chain ?? {};
      for (const { body } of messages) queue.send(body, Buffer.byteLength(JSON.stringify(body), 'utf8'), now, chain);
      // SendMessageBatch takes 10 entries (layers/aws/sqs-work-queue.ts sends in groups of 10).
      queue.requests.send += Math.ceil(messages.length / 10);
      lambda.time.spend(15);
      lambda.wake(queue, now);
      return Promise.resolve();
    },
  };
}
