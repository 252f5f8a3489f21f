// The judge's invoker against a loopback server speaking Lambda's Invoke API errors as the
// Lambda API reference ("Invoke", Errors) documents them: 429 TooManyRequestsException (with
// `Reason`), 502 ResourceNotReadyException for a function that is not Active, and a 400 that
// is the caller's fault. The real LambdaClient parses them (`x-amzn-errortype`).
import { createServer, type Server } from 'node:http';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessError, TransientError } from '#core/errors.ts';
import { LambdaInvoker } from '#aws/lambda-invoker.ts';

const ANSWERS: Record<string, { status: number; type: string; body: Record<string, string> }> = {
  throttled: {
    status: 429,
    type: 'TooManyRequestsException',
    body: { Type: 'User', message: 'Rate Exceeded.', Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded' },
  },
  inactive: {
    status: 502,
    type: 'ResourceNotReadyException',
    body: { Type: 'Service', message: 'The function is inactive and its VPC connection is no longer available.' },
  },
  invalid: { status: 400, type: 'InvalidRequestContentException', body: { Type: 'User', message: 'Could not parse request body into json' } },
};

let server: Server;
let endpoint: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const name = /functions\/([^/]+)\/invocations/.exec(req.url ?? '')?.[1] ?? '';
    const answer = ANSWERS[name];
    req.resume();
    if (answer === undefined) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'application/json', 'x-amzn-errortype': answer.type }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const invoker = (functionName: string) =>
  new LambdaInvoker({
    client: new LambdaClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' }, maxAttempts: 1 }),
    functionName,
  });

describe('LambdaInvoker', () => {
  it.each(['throttled', 'inactive'])('turns a %s runner into a TransientError, so the item goes back to its queue', async (name) => {
    const error = await invoker(name)
      .invoke('{}')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toBeInstanceOf(HarnessError);
    expect((error as Error).message).toContain(ANSWERS[name]?.type);
  });

  it('lets any other error through as it came', async () => {
    const error = await invoker('invalid')
      .invoke('{}')
      .catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(TransientError);
    expect((error as Error).name).toBe('InvalidRequestContentException');
  });

  it('returns the payload of a function that answered', async () => {
    expect(await invoker('ok').invoke('{}')).toEqual({ payload: '{"ok":true}' });
  });
});
