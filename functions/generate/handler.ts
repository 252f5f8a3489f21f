/**
 * generate (SQS): one work item per record → the model's answer; likert answers are scored
 * and recorded here, code goes to the execute queue of its language (layers/app/cloud/stages.ts).
 */
import { parseWorkItem } from '#app/cloud/messages.ts';
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
    handle: (item) => generateWork(deps, item),
  });
}

export const handler = lazyHandler(() => makeHandler(createGenerateDeps()));
