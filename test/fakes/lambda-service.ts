// A one-function Lambda service for tests: the Invoke API the judge's real LambdaClient calls
// (POST /2015-03-31/functions/{name}/invocations; 200 with the payload, and the
// `X-Amz-Function-Error` header with `{errorType, errorMessage}` when the function failed, as
// the Lambda API reference's Invoke describes) and, on a second loopback port, the Runtime API
// version 2018-06-01 a custom runtime polls (GET /runtime/invocation/next with
// `Lambda-Runtime-Aws-Request-Id` and `Lambda-Runtime-Deadline-Ms`; POST …/response and …/error
// answered 202). One execution environment at a time, started on demand by `start()` (the
// runtime process), as Lambda does: a runtime that exits during an invocation fails that
// invocation (`Runtime.ExitError`) and its environment is reset, and the next invocation (one
// queued already, or a later one) starts a new process — with the same /tmp, which Lambda's reset
// does not clear.
//
// Asynchronous invocations (`X-Amz-Invocation-Type: Event`) are answered 202 with no body at
// once, as the Invoke API reference says, and queued like the others; when the function has
// answered, the invocation record goes to `destination` (one for success and failure, as
// infra/runners.ts configures both to the same queue), in the shape the Lambda developer guide
// shows ("Capturing records of Lambda asynchronous invocations": version, timestamp,
// requestContext {requestId, functionArn, condition, approximateInvokeCount}, requestPayload,
// responseContext {statusCode, executedVersion, functionError}, responsePayload). No retries
// (the runner's MaximumRetryAttempts is 0): a failed invocation's record says RetriesExhausted.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ChildProcess } from 'node:child_process';

interface Pending {
  id: string;
  event: string;
  answer: (status: 'response' | 'error', body: string, errorType?: string) => void;
}

export interface FakeLambdaOptions {
  /** Starts one execution environment's runtime, told the Runtime API address. */
  start: (runtimeApi: string) => ChildProcess;
  timeoutMs?: number;
  /** Where an asynchronous invocation's record goes (the function's destination). */
  destination?: (record: Record<string, unknown>) => Promise<void>;
}

export class FakeLambdaService {
  readonly payloads: string[] = [];
  readonly answers: string[] = [];
  /** Each invocation's type, in order (`RequestResponse` or `Event`). */
  readonly invocationTypes: string[] = [];
  /** Every runtime process started, with how it ended. */
  readonly environments: { pid: number | undefined; exit?: number | null; output: string }[] = [];
  private invokeServer: Server | undefined;
  private runtimeServer: Server | undefined;
  private runtime: ChildProcess | undefined;
  private waiting: ServerResponse | undefined;
  private queue: Pending[] = [];
  private current: Pending | undefined;
  private delivering = 0;
  private listening = false;

  constructor(private readonly options: FakeLambdaOptions) {}

  /** No invocation queued or running and no record on its way to the destination (a driver's "all drained"). */
  get idle(): boolean {
    return this.queue.length === 0 && this.current === undefined && this.delivering === 0;
  }

  async listen(): Promise<{ endpoint: string; runtimeApi: string }> {
    this.runtimeServer = createServer((req, res) => void this.onRuntime(req, res));
    this.invokeServer = createServer((req, res) => void this.onInvoke(req, res));
    await Promise.all([this.runtimeServer, this.invokeServer].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
    this.listening = true;
    return { endpoint: `http://127.0.0.1:${port(this.invokeServer)}`, runtimeApi: this.runtimeApi() };
  }

  async close(): Promise<void> {
    this.listening = false;
    this.runtime?.kill('SIGKILL');
    this.waiting?.destroy();
    await Promise.all([this.runtimeServer, this.invokeServer].map((s) => new Promise<void>((r) => (s ? s.close(() => r()) : r()))));
  }

  private runtimeApi(): string {
    return `127.0.0.1:${port(this.runtimeServer as Server)}`;
  }

  private ensureEnvironment(): void {
    if (this.runtime && this.runtime.exitCode === null && this.runtime.signalCode === null) return;
    const child = this.options.start(this.runtimeApi());
    const record: (typeof this.environments)[number] = { pid: child.pid, output: '' };
    this.environments.push(record);
    child.stdout?.on('data', (c: Buffer) => (record.output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (record.output += c.toString()));
    child.on('exit', (code) => {
      record.exit = code;
      if (this.runtime === child) this.runtime = undefined;
      this.waiting = undefined;
      // An invocation in flight when the runtime ends fails, as Lambda reports it.
      const inFlight = this.current;
      this.current = undefined;
      inFlight?.answer(
        'error',
        JSON.stringify({ errorType: 'Runtime.ExitError', errorMessage: `RequestId: ${inFlight.id} Error: Runtime exited with error: exit status ${code}` }),
        'Unhandled',
      );
      // Invocations queued behind it (asynchronous events, or a caller's next request) get a new
      // environment, as Lambda resets a failed one and runs Init again for the next invocation
      // ("Understanding the Lambda execution environment lifecycle", Failures during the invoke
      // phase: docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html, read 2026-12-07).
      if (this.runtime === undefined && this.queue.length > 0 && this.listening) this.ensureEnvironment();
    });
    this.runtime = child;
  }

  private dispatch(): void {
    if (this.current || !this.waiting || this.queue.length === 0) return;
    const next = this.queue.shift() as Pending;
    this.current = next;
    const res = this.waiting;
    this.waiting = undefined;
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Lambda-Runtime-Aws-Request-Id': next.id,
      'Lambda-Runtime-Deadline-Ms': String(Date.now() + (this.options.timeoutMs ?? 900_000)),
      'Lambda-Runtime-Invoked-Function-Arn': 'arn:aws:lambda:us-east-1:123456789012:function:runner',
    });
    res.end(next.event);
  }

  private async onInvoke(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await read(req);
    if (req.method !== 'POST' || !/^\/2015-03-31\/functions\/[^/]+\/invocations/.test(req.url ?? '')) {
      res.writeHead(404, { 'Content-Type': 'application/json', 'x-amzn-ErrorType': 'ResourceNotFoundException' }).end('{"Type":"User","message":"not found"}');
      return;
    }
    this.payloads.push(body);
    const type = String(req.headers['x-amz-invocation-type'] ?? 'RequestResponse');
    this.invocationTypes.push(type);
    if (type === 'Event') {
      const id = randomUUID();
      res.writeHead(202, { 'Content-Type': 'application/json', 'x-amzn-RequestId': id }).end();
      this.queue.push({
        id,
        event: body,
        answer: (status, payload, errorType) => {
          this.answers.push(payload);
          const record = {
            version: '1.0',
            timestamp: new Date().toISOString(),
            requestContext: {
              requestId: id,
              functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:runner:$LATEST',
              condition: status === 'response' ? 'Success' : 'RetriesExhausted',
              approximateInvokeCount: 1,
            },
            requestPayload: JSON.parse(body) as unknown,
            responseContext: { statusCode: 200, executedVersion: '$LATEST', ...(status === 'error' ? { functionError: errorType ?? 'Unhandled' } : {}) },
            responsePayload: JSON.parse(payload) as unknown,
          };
          this.delivering++;
          void Promise.resolve(this.options.destination?.(record)).finally(() => this.delivering--);
        },
      });
      this.ensureEnvironment();
      this.dispatch();
      return;
    }
    this.queue.push({
      id: randomUUID(),
      event: body,
      answer: (status, payload, errorType) => {
        this.answers.push(payload);
        res.writeHead(200, {
          'Content-Type': 'application/json',
          'X-Amz-Executed-Version': '$LATEST',
          ...(status === 'error' ? { 'X-Amz-Function-Error': errorType ?? 'Unhandled' } : {}),
        });
        res.end(payload);
      },
    });
    this.ensureEnvironment();
    this.dispatch();
  }

  private async onRuntime(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await read(req);
    const url = req.url ?? '';
    if (req.method === 'GET' && url === '/2018-06-01/runtime/invocation/next') {
      this.waiting = res;
      this.dispatch();
      return;
    }
    const match = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(url);
    if (req.method === 'POST' && match && this.current && decodeURIComponent(match[1] as string) === this.current.id) {
      const pending = this.current;
      this.current = undefined;
      pending.answer(match[2] as 'response' | 'error', body, match[2] === 'error' ? 'Unhandled' : undefined);
      res.writeHead(202, { 'Content-Type': 'application/json' }).end('{"status":"OK"}');
      return;
    }
    if (req.method === 'POST' && url === '/2018-06-01/runtime/init/error') {
      res.writeHead(202, { 'Content-Type': 'application/json' }).end('{"status":"OK"}');
      return;
    }
    res.writeHead(400, { 'Content-Type': 'application/json' }).end('{"errorType":"InvalidRequestID"}');
  }
}

function port(server: Server): number {
  return (server.address() as { port: number }).port;
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
