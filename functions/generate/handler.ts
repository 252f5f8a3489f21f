/**
 * generate (SQS): one work item per record → the model's answer; likert answers are scored
 * and recorded here, code goes to the execute queue of its language (layers/app/cloud/stages.ts).
 */
import { QuotaExhausted } from '#core/errors.ts';
import { parseWorkItem } from '#app/cloud/messages.ts';
import { quotaBackoffSeconds } from '#app/cloud/retry-budget.ts';
import { generateWork } from '#app/cloud/stages.ts';
import { BookingBatch } from '#app/cloud/booking-batch.ts';
import { SendGate } from '#app/cloud/send-gate.ts';
import { statusOncePerInvocation } from '#app/cloud/status-once.ts';
import type { RunLedger } from '#core/ports.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { lazyHandler } from '../shared/lazy.ts';
import { createObservability } from '../shared/observability.ts';
import { sqsHandler, type SqsHandler } from '../shared/sqs-handler.ts';
import { createGenerateDeps, type GenerateHandlerDeps } from './deps.ts';

export function makeHandler(deps: GenerateHandlerDeps): SqsHandler {
  // One gate per invocation: the batch's execute messages go out in one SendMessageBatch per queue (send-gate.ts),
  // after its model calls' cost bookings, made in one ledger transaction (booking-batch.ts).
  const gates = new AsyncLocalStorage<SendGate>();
  // One per invocation: each run's status read once for the batch (status-once.ts).
  const ledgers = new AsyncLocalStorage<RunLedger>();
  const inner = sqsHandler({
    obs: deps.obs ?? createObservability('generate'),
    what: 'work item',
    parse: parseWorkItem,
    handle: async (item, record) => {
      const gate = gates.getStore() ?? new SendGate();
      try {
        return await gate.run(() =>
          generateWork(
            {
              ...deps,
              ledger: ledgers.getStore() ?? deps.ledger,
              executeQueues: gate.senders(deps.executeQueues),
              fargateQueues: gate.senders(deps.fargateQueues),
              ...(gate.bookings ? { bookings: gate.bookings } : {}),
            },
            item,
          ),
        );
      } catch (error) {
        // The model's quota is taken: the item comes back after a back-off that grows with its receives, never SE.
        if (error instanceof QuotaExhausted && deps.returnLater) {
          const seconds = quotaBackoffSeconds(Number(record.attributes.ApproximateReceiveCount));
          // Should the call fail, the message still comes back after the queue's own visibility timeout.
          await deps.returnLater(record, seconds).catch(() => undefined);
        }
        throw error;
      }
    },
  });
  const bookings = deps.batchBookings ?? true;
  return (event, context) =>
    gates.run(new SendGate(bookings ? new BookingBatch() : undefined), () => ledgers.run(statusOncePerInvocation(deps.ledger), () => inner(event, context)));
}

export const handler = lazyHandler(() => makeHandler(createGenerateDeps()));
