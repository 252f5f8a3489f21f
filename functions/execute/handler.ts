/**
 * execute (SQS, container image; one handler for every language): a generated code sample →
 * the sandbox's verdict → the record, then the completion check (layers/app/cloud/stages.ts).
 */
import { parseGeneratedItem } from '#app/cloud/messages.ts';
import { executeWork } from '#app/cloud/stages.ts';
import { lazyHandler } from '../shared/lazy.ts';
import { createObservability } from '../shared/observability.ts';
import { sqsHandler, type SqsHandler } from '../shared/sqs-handler.ts';
import { createExecuteDeps, type ExecuteHandlerDeps } from './deps.ts';

export function makeHandler(deps: ExecuteHandlerDeps): SqsHandler {
  return sqsHandler({
    obs: deps.obs ?? createObservability('execute'),
    what: 'generated item',
    parse: parseGeneratedItem,
    handle: async (generated) => {
      const outcome = await executeWork(deps, generated);
      await deps.afterItem?.(); // discards this environment if the program left anything behind
      return outcome;
    },
  });
}

export const handler = lazyHandler(() => makeHandler(createExecuteDeps()));
