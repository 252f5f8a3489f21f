/**
 * watchdog (EventBridge Scheduler, every 15 minutes): closes runs that stopped moving while the
 * pipeline is idle — aggregated over what is recorded, status `completed_with_missing`, the
 * missing items listed (layers/app/cloud/watchdog.ts). A failure throws: the next tick retries.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { watchRuns, type WatchdogReport } from '#app/cloud/watchdog.ts';
import { lazyHandler } from '../shared/lazy.ts';
import { createObservability, observabilityMiddlewares } from '../shared/observability.ts';
import { createWatchdogDeps, type WatchdogHandlerDeps } from './deps.ts';

export type WatchdogHandler = (event: unknown, context: Context) => Promise<WatchdogReport>;

export function makeHandler(deps: WatchdogHandlerDeps): WatchdogHandler {
  const obs = deps.obs ?? createObservability('watchdog');
  const chain = middy<unknown, WatchdogReport>();
  for (const middleware of observabilityMiddlewares(obs)) chain.use(middleware);
  return chain.handler(async () => {
    const report = await watchRuns(deps);
    if (report.stalled.length > 0) obs.logger.info('stalled runs', { ...report });
    if (report.alerts) obs.logger.info('queue alarms told', { alerts: report.alerts });
    return report;
  }) as unknown as WatchdogHandler;
}

export const handler = lazyHandler(() => makeHandler(createWatchdogDeps()));
