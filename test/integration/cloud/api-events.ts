/** API Gateway HTTP API (v2) events, as API Gateway builds them for an IAM-authorised route. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

const ROUTES = ['/runs', '/runs/{id}', '/runs/{id}/metrics', '/leaderboard'];

function routeOf(path: string): { route: string; pathParameters?: Record<string, string> } {
  const run = /^\/runs\/([^/]+)(\/metrics)?$/.exec(path);
  if (run?.[1]) return { route: run[2] ? '/runs/{id}/metrics' : '/runs/{id}', pathParameters: { id: decodeURIComponent(run[1]) } };
  return { route: ROUTES.includes(path) ? path : '$default' };
}

export function apiEvent(
  method: string,
  path: string,
  options: { body?: string; query?: Record<string, string>; headers?: Record<string, string> } = {},
): APIGatewayProxyEventV2 {
  const { route, pathParameters } = routeOf(path);
  const query = options.query ?? {};
  const rawQueryString = new URLSearchParams(query).toString();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: route === '$default' ? '$default' : `${method} ${route}`,
    rawPath: path,
    rawQueryString,
    headers: { host: 'abc123.execute-api.us-east-1.amazonaws.com', ...(options.headers ?? {}) },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: `req-${Math.random().toString(16).slice(2)}`,
      routeKey: route === '$default' ? '$default' : `${method} ${route}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
  };
  if (Object.keys(query).length > 0) event.queryStringParameters = query;
  if (pathParameters) event.pathParameters = pathParameters;
  if (options.body !== undefined) event.body = options.body;
  return event;
}

/** A JSON POST. */
export function postJson(path: string, body: unknown): APIGatewayProxyEventV2 {
  return apiEvent('POST', path, { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
}
