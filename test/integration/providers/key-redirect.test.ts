/**
 * A key goes only to the host it is bound to, redirects included: an allowed server that
 * answers 307 towards another host does not get the call (and its key) forwarded there. Node's
 * fetch (undici lib/web/fetch/index.js `httpRedirectFetch`, Node 20) drops only Authorization
 * on a cross-origin redirect and would forward Anthropic's `x-api-key` and Azure's `api-key`.
 * Real loopback servers; the providers as the deployed functions build them (refuse mode).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createNetworkProvider } from '#providers/index.ts';
import { chatRequest, useProviderSuite } from './harness.ts';

const cleanups = useProviderSuite();
const KEY = 'sk-bound-secret-0123456789';

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { server, port: (server.address() as AddressInfo).port };
}

/** An allowed host (127.0.0.1) that redirects every call to another one (localhost), which records what it gets. */
async function redirecting(status: number): Promise<{ base: string; received: IncomingHttpHeaders[] }> {
  const received: IncomingHttpHeaders[] = [];
  const other = await listen((req, res) => {
    received.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  const allowed = await listen((req, res) => {
    res.writeHead(status, { location: `http://localhost:${other.port}${req.url ?? '/'}` }).end();
  });
  return { base: `http://127.0.0.1:${allowed.port}`, received };
}

const CASES = [
  { name: 'anthropic (x-api-key)', variable: 'ANTHROPIC_API_KEY', spec: () => 'anthropic:claude-haiku-4-5', endpoint: true },
  { name: 'azure (api-key)', variable: 'AZURE_OPENAI_API_KEY', spec: (base: string) => `azure:${base}/#chat`, endpoint: false },
  { name: 'openai (Authorization)', variable: 'OPENAI_API_KEY', spec: (base: string) => `openai:${base}/v1#fake-model`, endpoint: false },
  // An OpenAI-like API declared with openAiLikeKind (its own key variable and route).
  { name: 'mistral (Authorization)', variable: 'MISTRAL_API_KEY', spec: (base: string) => `mistral:${base}/v1#mistral-small-latest`, endpoint: false },
];

describe('a bound key does not follow a redirect to another host', () => {
  for (const c of CASES)
    for (const status of [307, 302])
      it(`${c.name}: a ${status} from the allowed host reaches no other host, and the call fails naming the redirect`, async () => {
        const { base, received } = await redirecting(status);
        const provider = createNetworkProvider(c.spec(base), {
          env: { [c.variable]: KEY },
          keyHosts: { mode: 'refuse', extra: { [c.variable]: ['127.0.0.1'] } },
          ...(c.endpoint ? { endpointUrl: base } : {}),
          maxRetries: 0,
          throttleRetries: 0,
        });
        if (!provider) throw new Error('no provider');

        await expect(provider.generate(chatRequest())).rejects.toThrow(/answered 30\d with a redirect to http:\/\/localhost:\d+: API calls are not redirected/);
        expect(received).toEqual([]);
      });
});
