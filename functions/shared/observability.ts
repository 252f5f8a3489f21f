/**
 * Powertools for AWS Lambda (logger, metrics, tracer) for one function, and the middy
 * middlewares that attach them. They live only in the middy chain; the service name and the
 * metrics namespace come from the function's environment (infra's powertoolsEnvironment).
 * Without X-Ray (tests, local runs) set POWERTOOLS_TRACE_ENABLED=false: the tracer is a no-op.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { MiddlewareObj } from '@middy/core';

export interface Observability {
  logger: Logger;
  metrics: Metrics;
  tracer: Tracer;
}

/** Logger, metrics and tracer of one service (`api`, `plan`, …). */
export function createObservability(service: string): Observability {
  return {
    logger: new Logger({ serviceName: service }),
    metrics: new Metrics({ serviceName: service, namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'polyeval' }),
    tracer: new Tracer({ serviceName: service }),
  };
}

/** The observability middlewares, outermost first; every invocation counts one `invocations` metric. */
export function observabilityMiddlewares(obs: Observability): MiddlewareObj[] {
  return [
    captureLambdaHandler(obs.tracer, { captureResponse: false }) as MiddlewareObj,
    injectLambdaContext(obs.logger, { resetKeys: true }) as MiddlewareObj,
    logMetrics(obs.metrics, { throwOnEmptyMetrics: false }) as MiddlewareObj,
    {
      name: 'countInvocations',
      // Returns nothing on purpose: a `before` that returns a value is middy's early response.
      before: () => {
        obs.metrics.addMetric('invocations', MetricUnit.Count, 1);
      },
    },
  ];
}
