/**
 * The runner's own Lambda runtime: a loop over the Lambda Runtime API (version 2018-06-01,
 * "Using the Lambda runtime API for custom runtimes"): GET /runtime/invocation/next, then POST
 * /runtime/invocation/{id}/response or /error. A managed runtime cannot end its environment
 * after answering (the answer is posted when the handler returns, and exiting in the handler
 * loses it); this loop can: it posts the answer and, when the program left something behind,
 * exits *before* asking for the next event. The invocation is then still in its Invoke phase,
 * and "if the Lambda function crashes or times out during the Invoke phase, Lambda resets the
 * execution environment" (Lambda developer guide, execution environment lifecycle) — the
 * runtime is shut down and initialised again before any further invocation. The same guide
 * says a reset "does not clear the /tmp directory", so the runner's start (main.ts) empties
 * /tmp and refuses to serve while a process of its uid is still alive.
 *
 * Plain node:http, no timeout: `next` long-polls while the environment is frozen.
 */
import { request } from 'node:http';

const API_VERSION = '2018-06-01';

export interface Invocation {
  requestId: string;
  event: unknown;
}

export type Answer = { response: unknown; discard: boolean } | { error: { errorType: string; errorMessage: string }; discard: boolean };

function call(
  api: string,
  method: 'GET' | 'POST',
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const [host, port] = api.split(':');
    const req = request(
      {
        host,
        port: Number(port ?? 80),
        method,
        path: `/${API_VERSION}${path}`,
        headers: { ...headers, ...(body !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Asks for the next event (blocks until Lambda has one). */
export async function nextInvocation(api: string): Promise<Invocation> {
  const res = await call(api, 'GET', '/runtime/invocation/next');
  const requestId = res.headers['lambda-runtime-aws-request-id'];
  if (res.status !== 200 || typeof requestId !== 'string') throw new Error(`runtime API next: HTTP ${res.status}`);
  return { requestId, event: JSON.parse(res.body) as unknown };
}

/** Posts the answer of one invocation. */
export async function postAnswer(api: string, requestId: string, answer: Answer): Promise<void> {
  const id = encodeURIComponent(requestId);
  const res =
    'response' in answer
      ? await call(api, 'POST', `/runtime/invocation/${id}/response`, JSON.stringify(answer.response))
      : await call(api, 'POST', `/runtime/invocation/${id}/error`, JSON.stringify(answer.error), {
          'Lambda-Runtime-Function-Error-Type': answer.error.errorType,
        });
  if (res.status !== 202) throw new Error(`runtime API ${'response' in answer ? 'response' : 'error'}: HTTP ${res.status} ${res.body.slice(0, 200)}`);
}

/** Reports a failed start (the function's INIT error). */
export async function postInitError(api: string, error: Error): Promise<void> {
  await call(api, 'POST', '/runtime/init/error', JSON.stringify({ errorType: error.name, errorMessage: error.message }), {
    'Lambda-Runtime-Function-Error-Type': error.name,
  });
}

/**
 * Serves invocations until one must end the environment: then resolves (the caller exits).
 * `serve` never throws (serve.ts answers failures as errors).
 */
export async function serveLoop(api: string, serve: (event: unknown) => Promise<Answer>): Promise<Answer> {
  for (;;) {
    const { requestId, event } = await nextInvocation(api);
    const answer = await serve(event);
    await postAnswer(api, requestId, answer);
    if (answer.discard) return answer;
  }
}
