/**
 * nightly (EventBridge Scheduler): starts the sweep's runs, one per benchmark × model, as
 * POST /runs does (layers/app/cloud/nightly.ts). A failure throws: the schedule retries and
 * the function's error alarm fires.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { startNightlySweep } from '#app/cloud/nightly.ts';
import type { StartedRun } from '#app/cloud/start.ts';
import { lazyHandler } from '../shared/lazy.ts';
import { createObservability, observabilityMiddlewares } from '../shared/observability.ts';
import { createNightlyDeps, type NightlyHandlerDeps } from './deps.ts';

export type NightlyHandler = (event: unknown, context: Context) => Promise<{ runs: StartedRun[] }>;

export function makeHandler(deps: NightlyHandlerDeps): NightlyHandler {
  const obs = deps.obs ?? createObservability('nightly');
  const chain = middy<unknown, { runs: StartedRun[] }>();
  for (const middleware of observabilityMiddlewares(obs)) chain.use(middleware);
  return chain.handler(async (event: unknown) => {
    const runs = await startNightlySweep(deps, event);
    obs.logger.info('nightly sweep started', { runs: runs.map((r) => r.run_id) });
    return { runs };
  }) as unknown as NightlyHandler;
}

export const handler = lazyHandler(() => makeHandler(createNightlyDeps()));
