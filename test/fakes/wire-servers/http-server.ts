/**
 * The machinery every fake wire server shares: a real HTTP server on 127.0.0.1 (port 0)
 * that records each request, counts requests in flight (so tests can observe a
 * concurrency cap from the server's side), plays scripted faults on the first requests,
 * and on close destroys hung connections.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** A failure the server plays instead of answering normally. */
export type Fault =
  /** HTTP 429 with Retry-After (seconds, or an HTTP date string) when given. */
  | { kind: 'throttle'; retryAfter?: string }
  /** HTTP 503. */
  | { kind: 'unavailable' }
  /** Any status with the server's error body (e.g. 400 for a bad request, 403 for no access). */
  | { kind: 'status'; status: number; message?: string; type?: string }
  /** 200 with a body that is not JSON. */
  | { kind: 'malformed' }
  /** 200 with an empty body. */
  | { kind: 'empty' }
  /** Accepts the request and never answers (until the client gives up or the server closes). */
  | { kind: 'hang' }
  /** Destroys the connection without answering. */
  | { kind: 'reset' };

/** One request as the server saw it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** The fault played on it, if any. */
  fault?: Fault['kind'];
}

export interface FaultOptions {
  /** Faults played, in order, on the first requests. */
  faults?: Fault[];
  /** Shorthand: play `fault` (default throttle) on the first `failFirst` requests. */
  failFirst?: number;
  fault?: Fault;
  /** Hold every answer until this many requests are in flight at once (or `holdMs` passes). */
  barrier?: number;
  /** Upper bound of a hold (default 1000 ms); with no barrier, every answer waits this long when set. */
  holdMs?: number;
  /**
   * A request quota per fixed window, like Bedrock's requests-per-minute: requests past it
   * get 429 with `Retry-After` (whole seconds, rounded up, until the window resets) and
   * `retry-after-ms`. Scale `windowMs` down (e.g. 1000) to keep tests short.
   */
  rateLimit?: { requests: number; windowMs: number };
  /**
   * Room for this many requests at once: one arriving while `capacity` are being answered gets
   * 429 at once, rendered by the server as its `overloaded` error. As TGI v3.3.7 does with
   * `--max-concurrent-requests` (router/src/infer/mod.rs `Infer::generate_stream`: a
   * `try_acquire_owned` on the `limit_concurrent_requests` semaphore fails → `InferError::Overloaded`,
   * "Model is overloaded", which router/src/server.rs maps to 429 `error_type: "overloaded"`).
   * `setCapacity` changes it while the server runs.
   */
  capacity?: number;
  /** How long a refusal past `capacity` takes to reach the client (the network and any front end in between); default 0. */
  refuseAfterMs?: number;
}

export interface FakeServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  requests: RecordedRequest[];
  /** Highest number of requests in flight at the same moment. */
  maxInFlight(): number;
  /** Requests answered with a throttling 429 by `rateLimit` or `capacity`. */
  throttled(): number;
  /** The requests in flight (this one included) as each request arrived, in arrival order. */
  inFlightAtArrival(): number[];
  /** Changes (or, undefined, lifts) the `capacity` limit. */
  setCapacity(capacity: number | undefined): void;
  close(): Promise<void>;
}

/** What the protocol layer implements: answer one (non-faulty) request. */
export type Answer = (req: RecordedRequest) => AnswerOut | Promise<AnswerOut>;
type AnswerOut = { status: number; headers?: Record<string, string>; body: unknown };

/** How a protocol renders a fault's error body and headers. */
export type ErrorRenderer = (
  status: number,
  type: string,
  message: string,
  /** The refused request (the capacity refusal passes it: a server may refuse a stream differently). */
  req?: RecordedRequest,
) => { status?: number; headers: Record<string, string>; body: unknown };

/** Starts a fake server; `answer` handles requests not consumed by a fault. */
export async function startFakeServer(answer: Answer, renderError: ErrorRenderer, options: FaultOptions = {}): Promise<FakeServer> {
  const faults = [...(options.faults ?? []), ...Array.from({ length: options.failFirst ?? 0 }, () => options.fault ?? { kind: 'throttle' as const })];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const waiting: (() => void)[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let windowStart = Date.now();
  let windowCount = 0;
  let throttledCount = 0;
  let capacity = options.capacity;
  const arrivals: number[] = [];

  /** ms to wait when the request is over the window's quota; undefined when it fits. */
  function overQuota(): number | undefined {
    const limit = options.rateLimit;
    if (!limit) return undefined;
    const now = Date.now();
    if (now - windowStart >= limit.windowMs) {
      windowStart = now - ((now - windowStart) % limit.windowMs);
      windowCount = 0;
    }
    if (windowCount < limit.requests) {
      windowCount += 1;
      return undefined;
    }
    return Math.max(1, windowStart + limit.windowMs - now);
  }

  const server = createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    arrivals.push(inFlight);
    const overCapacity = capacity !== undefined && inFlight > capacity;
    // 'finish' fires as the answer is handed to the OS, before the client can send its next request.
    let done = false;
    const settle = (): void => {
      if (!done) inFlight -= 1;
      done = true;
    };
    res.on('finish', settle);
    res.on('close', settle);
    void handle(req, res, overCapacity);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse, overCapacity: boolean): Promise<void> {
    const text = await readBody(req);
    const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: parse(text) };
    if (overCapacity) {
      // Refused on arrival, before any hold: the semaphore is tried first (see FaultOptions.capacity).
      throttledCount += 1;
      recorded.fault = 'throttle';
      requests.push(recorded);
      if (options.refuseAfterMs) await new Promise((resolve) => setTimeout(resolve, options.refuseAfterMs));
      const e = renderError(429, 'overloaded', 'Model is overloaded', recorded);
      send(res, e.status ?? 429, e.headers, e.body);
      return;
    }
    const fault = faults.shift();
    if (fault) recorded.fault = fault.kind;
    requests.push(recorded);
    await hold();
    if (fault) return playFault(fault, res);
    const wait = overQuota();
    if (wait !== undefined) {
      throttledCount += 1;
      recorded.fault = 'throttle';
      const e = renderError(429, 'ThrottlingException', 'Too many requests, please wait before trying again.');
      send(res, e.status ?? 429, { ...e.headers, 'retry-after': String(Math.ceil(wait / 1000)), 'retry-after-ms': String(wait) }, e.body);
      return;
    }
    try {
      const out = await answer(recorded);
      send(res, out.status, out.headers ?? {}, out.body);
    } catch (err) {
      const e = renderError(500, 'InternalFailure', `fake server: ${(err as Error).message}`);
      send(res, e.status ?? 500, e.headers, e.body);
    }
  }

  async function hold(): Promise<void> {
    if (options.barrier === undefined && options.holdMs === undefined) return;
    if (options.barrier !== undefined && inFlight >= options.barrier) {
      for (const release of waiting.splice(0)) release();
      return;
    }
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      setTimeout(resolve, options.holdMs ?? 1000);
    });
  }

  function playFault(fault: Fault, res: ServerResponse): void {
    switch (fault.kind) {
      case 'throttle': {
        const e = renderError(429, 'ThrottlingException', 'Rate exceeded');
        send(res, e.status ?? 429, { ...e.headers, ...(fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {}) }, e.body);
        return;
      }
      case 'unavailable': {
        const e = renderError(503, 'ServiceUnavailableException', 'Service unavailable, try again');
        send(res, e.status ?? 503, e.headers, e.body);
        return;
      }
      case 'status': {
        const e = renderError(fault.status, fault.type ?? typeForStatus(fault.status), fault.message ?? `status ${fault.status}`);
        send(res, e.status ?? fault.status, e.headers, e.body);
        return;
      }
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": [ this is not json');
        return;
      case 'empty':
        res.writeHead(200, { 'content-type': 'application/json' }).end('');
        return;
      case 'hang':
        return;
      case 'reset':
        res.socket?.destroy();
        return;
      default: {
        const unreachable: never = fault;
        throw new Error(`unknown fault ${JSON.stringify(unreachable)}`);
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('fake server has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    maxInFlight: () => maxInFlight,
    throttled: () => throttledCount,
    inFlightAtArrival: () => [...arrivals],
    setCapacity: (value) => {
      capacity = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const release of waiting.splice(0)) release();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function typeForStatus(status: number): string {
  if (status === 400) return 'ValidationException';
  if (status === 403) return 'AccessDeniedException';
  if (status === 404) return 'ResourceNotFoundException';
  if (status === 429) return 'ThrottlingException';
  return status >= 500 ? 'InternalServerException' : 'ValidationException';
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  const payload = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(payload);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parse(text: string): unknown {
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return text;
  }
}
