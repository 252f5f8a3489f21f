/**
 * plan (SQS, batch size 1): plans a run on its first message and enqueues its work items one
 * chunk per message; the first chunk sends the plan message of every later one (layers/app/cloud/plan.ts).
 */
import { parsePlanMessage } from '#app/cloud/messages.ts';
import { planChunk } from '#app/cloud/plan.ts';
import { lazyHandler } from '../shared/lazy.ts';
import { createObservability } from '../shared/observability.ts';
import { sqsHandler, type SqsHandler } from '../shared/sqs-handler.ts';
import { createPlanDeps, type PlanHandlerDeps } from './deps.ts';

export function makeHandler(deps: PlanHandlerDeps): SqsHandler {
  const obs = deps.obs ?? createObservability('plan');
  return sqsHandler({
    obs,
    what: 'plan',
    parse: parsePlanMessage,
    handle: async (message) => {
      const outcome = await planChunk(deps, message);
      obs.logger.info('plan chunk', { ...outcome });
      return outcome;
    },
  });
}

export const handler = lazyHandler(() => makeHandler(createPlanDeps()));
