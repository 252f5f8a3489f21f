/**
 * generate (SQS): one work item per record → the model's answer; likert answers are scored
 * and recorded here, code goes to the execute queue of its language (layers/app/cloud/stages.ts).
 */
import { QuotaExhausted } from '#core/errors.ts';
import { parseWorkItem } from '#app/cloud/messages.ts';
import { quotaBackoffSeconds } from '#app/cloud/retry-budget.ts';
import { generateWork } from '#app/cloud/stages.ts';
import { lazyHandler } from '../shared/lazy.ts';
import { createObservability } from '../shared/observability.ts';
import { sqsHandler, type SqsHandler } from '../shared/sqs-handler.ts';
import { createGenerateDeps, type GenerateHandlerDeps } from './deps.ts';

export function makeHandler(deps: GenerateHandlerDeps): SqsHandler {
  return sqsHandler({
    obs: deps.obs ?? createObservability('generate'),
    what: 'work item',
    parse: parseWorkItem,
    handle: async (item, record) => {
      try {
        return await generateWork(deps, item);
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
}

export const handler = lazyHandler(() => makeHandler(createGenerateDeps()));
