// Lambda's GetAccountSettings as the real @aws-sdk/client-lambda calls it: `GET
// /2016-08-19/account-settings`, SigV4-signed for service `lambda`, answered 200 with
// `{"AccountLimit": {TotalCodeSize, CodeSizeUnzipped, CodeSizeZipped, ConcurrentExecutions,
// UnreservedConcurrentExecutions}, "AccountUsage": {TotalCodeSize, FunctionCount}}` (aws-sdk-js-v3
// clients/client-lambda 3.1164.0, dist-cjs/index.js: `GetAccountSettings$` and the `AccountLimit$`,
// `AccountUsage$` shapes; Lambda API reference, "GetAccountSettings"). Any other request is 404.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AccountSettingsServer {
  url: string;
  /** Every request's method, path and Authorization header. */
  requests: { method: string; path: string; authorization: string }[];
  close: () => Promise<void>;
}

export async function startAccountSettingsServer(limit: { concurrent: number; unreserved: number }): Promise<AccountSettingsServer> {
  const requests: AccountSettingsServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', authorization: String(req.headers.authorization ?? '') });
    req.resume();
    if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/2016-08-19/account-settings') {
      res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': 'fake-request' });
      res.end(
        JSON.stringify({
          AccountLimit: {
            TotalCodeSize: 80530636800,
            CodeSizeUnzipped: 262144000,
            CodeSizeZipped: 52428800,
            ConcurrentExecutions: limit.concurrent,
            UnreservedConcurrentExecutions: limit.unreserved,
          },
          AccountUsage: { TotalCodeSize: 0, FunctionCount: 0 },
        }),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' });
    res.end(JSON.stringify({ Type: 'User', message: 'not found' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
