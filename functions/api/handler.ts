/**
 * The HTTP API (API Gateway HTTP API v2, IAM-authorised): POST /runs, GET /runs,
 * GET /runs/{id}, GET /runs/{id}/metrics, GET /runs/{id}/report (a presigned link), POST /runs/{id}/cancel, POST /runs/{id}/redrive,
 * POST /runs/{id}/resume,
 * GET /leaderboard?benchmark=…[&protocol=…&language=…&dataset=…&metric=…&slice=…],
 * POST /selftest, GET /selftest/{id}
 * Each route parses its input with the shared schema, calls one function of layers/app and
 * maps the result; errors become HTTP in the middy chain (http-errors.ts).
 */
import middy from '@middy/core';
import httpErrorHandler from '@middy/http-error-handler';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { InputError } from '#core/errors.ts';
import { parseRunSpec } from '#core/run/index.ts';
import { getRunMetrics, getRunView, leaderboard, listRuns } from '#app/cloud/queries.ts';
import { reportLink } from '#app/cloud/report-link.ts';
import { cancelRun, redriveRun } from '#app/cloud/run-control.ts';
import { requestResume } from '#app/cloud/resume.ts';
import { startRuns } from '#app/cloud/start.ts';
import { parseSelftestRequest, selftestView, startSelftest } from '#app/cloud/selftest.ts';
import { domainErrorsToHttp, INTERNAL_ERROR_BODY } from '../shared/http-errors.ts';
import { lazyHandler } from '../shared/lazy.ts';
import { createObservability, observabilityMiddlewares } from '../shared/observability.ts';
import { createApiDeps, type ApiDeps } from './deps.ts';

export type ApiHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

function json(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

async function route(deps: ApiDeps, event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const method = event.requestContext.http.method.toUpperCase();
  const path = (event.rawPath || '/').replace(/\/+$/, '') || '/';
  const runMatch = /^\/runs\/([^/]+)(\/metrics|\/report)?$/.exec(path);
  const actionMatch = /^\/runs\/([^/]+)\/(cancel|redrive|resume)$/.exec(path);
  if (path === '/runs' && method === 'POST') {
    const body: unknown = event.body;
    if (typeof body !== 'object' || body === null) {
      throw new InputError('the body must be a JSON run spec (Content-Type: application/json)', { field: 'body' });
    }
    const runs = await startRuns(deps, parseRunSpec(body, 'request body'));
    return json(202, { run_id: runs[0]?.run_id, runs });
  }
  if (path === '/runs' && method === 'GET') return json(200, { runs: await listRuns(deps) });
  if (runMatch && method === 'GET') {
    const runId = decodeURIComponent(runMatch[1] ?? '');
    if (runMatch[2] === '/report') return json(200, await reportLink(deps, runId));
    return json(200, runMatch[2] ? await getRunMetrics(deps, runId) : await getRunView(deps, runId));
  }
  if (actionMatch && method === 'POST') {
    const runId = decodeURIComponent(actionMatch[1] ?? '');
    if (actionMatch[2] === 'cancel') return json(200, { run: await cancelRun(deps.ledger, runId) });
    if (actionMatch[2] === 'resume') return json(202, await requestResume(deps, runId));
    return json(200, await redriveRun(deps, runId));
  }
  if (path === '/leaderboard' && method === 'GET') {
    const q = event.queryStringParameters ?? {};
    return json(
      200,
      await leaderboard(deps, { benchmark: q.benchmark, metric: q.metric, slice: q.slice, protocol: q.protocol, language: q.language, dataset: q.dataset }),
    );
  }
  if (path === '/selftest' && method === 'POST') return json(202, await startSelftest(deps, parseSelftestRequest(event.body)));
  const selftestMatch = /^\/selftest\/([^/]+)$/.exec(path);
  if (selftestMatch && method === 'GET') return json(200, await selftestView(deps, decodeURIComponent(selftestMatch[1] ?? '')));
  return json(404, { message: `no route ${method} ${path}` });
}

export function makeHandler(deps: ApiDeps): ApiHandler {
  const obs = deps.obs ?? createObservability('api');
  const chain = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>();
  for (const middleware of observabilityMiddlewares(obs)) chain.use(middleware);
  chain
    .use(httpErrorHandler({ logger: false, fallbackMessage: INTERNAL_ERROR_BODY }))
    .use(domainErrorsToHttp(obs.logger))
    // GET requests carry no JSON: a missing content type is not an error, only malformed JSON is.
    .use(httpJsonBodyParser({ disableContentTypeError: true }));
  return chain.handler((event: APIGatewayProxyEventV2) => route(deps, event)) as unknown as ApiHandler;
}

export const handler = lazyHandler(() => makeHandler(createApiDeps()));
