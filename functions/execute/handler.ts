/**
 * execute (SQS, container image; one handler for every language): a generated code sample →
 * the sandbox's verdict → the record, then the completion check (layers/app/cloud/stages.ts).
 * A judge that hands off to its runner also takes the runner's invocation records from the
 * runner's destination queue, and continues their items (layers/app/cloud/continuation.ts).
 */
import { judgeWork, parseJudgeMessage } from '#app/cloud/continuation.ts';
import { parseGeneratedItem, type GeneratedMessage } from '#app/cloud/messages.ts';
import { executeWork } from '#app/cloud/stages.ts';
import { lazyHandler } from '../shared/lazy.ts';
import { createObservability } from '../shared/observability.ts';
import { sqsHandler, type SqsHandler } from '../shared/sqs-handler.ts';
import { createExecuteDeps, type ExecuteHandlerDeps } from './deps.ts';

export function makeHandler(deps: ExecuteHandlerDeps): SqsHandler {
  const { handoff } = deps;
  return sqsHandler({
    obs: deps.obs ?? createObservability('execute'),
    what: 'generated item',
    parse: handoff ? parseJudgeMessage : parseGeneratedItem,
    handle: async (message) => {
      const outcome = handoff ? await judgeWork(deps, handoff, message) : await executeWork(deps, message as GeneratedMessage);
      await deps.afterItem?.(); // discards this environment if the program left anything behind
      return outcome;
    },
  });
}

export const handler = lazyHandler(() => makeHandler(createExecuteDeps()));
