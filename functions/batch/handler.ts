/**
 * batch (EventBridge Scheduler, every few minutes): the batch stage of `remote run --batch` —
 * creates the runs' batch jobs, polls them, routes the results of ended jobs like on-demand
 * generations, and stops the jobs of cancelled runs (layers/app/cloud/batch.ts). A failure
 * throws (its alarm); the next tick continues where this one stopped.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { tickBatches, type BatchTickReport } from '#app/cloud/batch.ts';
import { lazyHandler } from '../shared/lazy.ts';
import { createObservability, observabilityMiddlewares } from '../shared/observability.ts';
import { createBatchDeps, type BatchHandlerDeps } from './deps.ts';

export type BatchHandler = (event: unknown, context: Context) => Promise<BatchTickReport>;

export function makeHandler(deps: BatchHandlerDeps): BatchHandler {
  const obs = deps.obs ?? createObservability('batch');
  const chain = middy<unknown, BatchTickReport>();
  for (const middleware of observabilityMiddlewares(obs)) chain.use(middleware);
  return chain.handler(async () => {
    const report = await tickBatches(deps);
    if (report.runs.length > 0) obs.logger.info('batch jobs', { ...report });
    return report;
  }) as unknown as BatchHandler;
}

export const handler = lazyHandler(() => makeHandler(createBatchDeps()));
