/**
 * aggregate (SQS, batch size 1): one records part of a run as it runs, or the metrics, Parquet
 * tables, summary and report of a run whose items are all recorded (or that the watchdog
 * closes with items missing), then the `RunCompleted` event (layers/app/cloud/aggregate.ts).
 */
import { aggregateCloud } from '#app/cloud/aggregate.ts';
import { parseAggregateMessage } from '#app/cloud/messages.ts';
import { lazyHandler } from '../shared/lazy.ts';
import { createObservability } from '../shared/observability.ts';
import { sqsHandler, type SqsHandler } from '../shared/sqs-handler.ts';
import { createAggregateDeps, type AggregateHandlerDeps } from './deps.ts';

export function makeHandler(deps: AggregateHandlerDeps): SqsHandler {
  const obs = deps.obs ?? createObservability('aggregate');
  return sqsHandler({
    obs,
    what: 'aggregate',
    parse: parseAggregateMessage,
    handle: async (message) => {
      const { runId } = message;
      const outcome = await aggregateCloud(deps, message);
      obs.logger.info('aggregate', outcome.status === 'aggregated' ? { runId, status: outcome.status, items: outcome.summary.items } : { runId, ...outcome });
      return outcome;
    },
  });
}

export const handler = lazyHandler(() => makeHandler(createAggregateDeps()));
