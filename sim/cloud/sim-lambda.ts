/**
 * Lambda in virtual time: functions with their memory, timeout, reserved concurrency and cold
 * starts; SQS event source mappings that poll their queue, scale as Lambda scales them and
 * invoke the REAL handler (functions/<stage>/handler.ts makeHandler) with a genuine SQS event;
 * synchronous invocations (the judge calling its runner) through a client the real
 * LambdaInvoker sends its InvokeCommand to. Every limit comes from ./limits; GB-seconds are
 * counted per function for the cost.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { ConcurrencyPools } from './limits/concurrency.ts';
import { ESM_RETRY_AFTER_ERROR_MS, esmAllowedBatches } from './limits/esm-scaling.ts';
import { FunctionStates, notActiveError } from './limits/function-state.ts';
import { ASYNC_PAYLOAD_BYTES, checkInvokePayload, invokeResponse } from './limits/payload.ts';
import { recursionAllows } from './limits/recursion.ts';
import { checkMessageSize, SimSqsQueue, SQS_BATCH_MAX, type SqsMessage } from './limits/sqs.ts';
import { applyTimeout } from './limits/timeout.ts';
import type { Invocation, VirtualTime } from './virtual-time.ts';

export interface FunctionSpec {
  name: string;
  memoryMb: number;
  timeoutMs: number;
  reserved?: number;
  coldStartMs: number;
  /** Per invocation: the runtime, the middy chain, logging. */
  overheadMs: number;
}

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export interface Mapping {
  fn: FunctionSpec;
  queue: SimSqsQueue<unknown>;
  batchSize: number;
  maxConcurrency?: number;
  handler: SqsHandler;
  busySince?: number;
  inFlight: number;
  pollAt?: number;
  /**
   * MaximumBatchingWindowInSeconds: with fewer than `batchSize` messages visible, the poller waits
   * up to this long for more before invoking ("Lambda parameters for Amazon SQS event source mappings").
   */
  batchWindowMs?: number;
  windowUntil?: number;
}

export interface LambdaStats {
  gbSeconds: Record<string, number>;
  invocations: Record<string, number>;
  throttles: Record<string, number>;
  coldStarts: Record<string, number>;
  recursionDropped: number;
  timeouts: number;
  /** Event source mapping invocations that met the function Inactive or Pending (the batch comes back after its visibility timeout). */
  notActive: Record<string, number>;
  peak: Record<string, number>;
  /** Asynchronous invocations whose record Lambda could not deliver to the destination (over the queue's message size). */
  destinationDeliveryFailures: number;
  /** Invocation records delivered to a destination queue. */
  destinationRecords: number;
  /** Asynchronous events that waited for concurrency or an Active function (Lambda's internal queue retries them). */
  asyncRetries: number;
}

const add = (record: Record<string, number>, key: string, value: number): void => {
  record[key] = (record[key] ?? 0) + value;
};

export class SimLambda {
  readonly pools: ConcurrencyPools;
  readonly states = new FunctionStates();
  readonly stats: LambdaStats = {
    gbSeconds: {},
    invocations: {},
    throttles: {},
    coldStarts: {},
    recursionDropped: 0,
    timeouts: 0,
    notActive: {},
    peak: {},
    destinationDeliveryFailures: 0,
    destinationRecords: 0,
    asyncRetries: 0,
  };
  readonly #mappings: Mapping[] = [];
  readonly #environments = new Map<string, number>();

  constructor(
    readonly time: VirtualTime,
    options: { accountConcurrency?: number; recursionLimit?: number; random?: () => number } = {},
  ) {
    this.pools = new ConcurrencyPools(options.accountConcurrency);
    this.recursionLimit = options.recursionLimit;
    this.#random = options.random ?? (() => 0.5);
  }

  readonly #random: () => number;

  readonly recursionLimit: number | undefined;

  define(fn: FunctionSpec): void {
    if (fn.reserved !== undefined) this.pools.reserve(fn.name, fn.reserved);
  }

  map(mapping: Omit<Mapping, 'inFlight'>): Mapping {
    const m: Mapping = { ...mapping, inFlight: 0 };
    this.#mappings.push(m);
    return m;
  }

  /** Long polling: a mapping whose queue got a message polls at once. */
  wake(queue: SimSqsQueue<unknown>, atMs: number): void {
    for (const m of this.#mappings) if (m.queue === queue) this.#schedulePoll(m, atMs);
  }

  #schedulePoll(m: Mapping, atMs: number): void {
    if (m.pollAt !== undefined && m.pollAt <= atMs) return;
    m.pollAt = atMs;
    this.time.at(atMs, () => {
      if (m.pollAt !== atMs) return;
      m.pollAt = undefined;
      return this.#poll(m);
    });
  }

  async #poll(m: Mapping): Promise<void> {
    const now = this.time.now();
    if (m.queue.depth === 0) {
      m.busySince = undefined;
      return;
    }
    m.busySince ??= now;
    if (m.batchWindowMs !== undefined) {
      const visible = m.queue.visibleCount(now);
      if (visible > 0 && visible < m.batchSize) {
        m.windowUntil ??= now + m.batchWindowMs;
        if (now < m.windowUntil) return this.#schedulePoll(m, m.windowUntil);
      }
      m.windowUntil = undefined;
    }
    // An invoke that failed (Inactive, Pending, throttled) stops this poll; the pollers poll again soon.
    let failedInvoke = false;
    while (m.inFlight < esmAllowedBatches(now - m.busySince, m.maxConcurrency)) {
      const received = gatherBatch(m.queue, m.batchSize, now);
      if (received.length === 0) break;
      const batch = received.filter((message) => {
        if (this.recursionLimit === undefined || recursionAllows((message.chain[m.fn.name] ?? 0) + 1, this.recursionLimit)) return true;
        // Dropped: RecursiveInvocationException to the mapping, the receive counts, the message comes back (limits/recursion.ts).
        this.stats.recursionDropped += 1;
        m.queue.fail(message);
        return false;
      });
      if (batch.length === 0) continue;
      // A function idle long enough is Inactive (the judges are VPC functions, like the runners):
      // the poller's invoke fails, and the batch comes back after its visibility timeout, a receive
      // that counts (limits/function-state.ts; "Lambda function states").
      if (this.states.invoke(m.fn.name, now) !== 'Active') {
        add(this.stats.notActive, m.fn.name, 1);
        for (const message of batch) m.queue.fail(message);
        failedInvoke = true;
        break;
      }
      if (!this.pools.tryAcquire(m.fn.name)) {
        // Throttled: the batch goes back after its visibility timeout (a receive that counts).
        add(this.stats.throttles, m.fn.name, 1);
        for (const message of batch) m.queue.fail(message);
        failedInvoke = true;
        break;
      }
      m.inFlight += 1;
      await this.#invoke(m, batch, now);
    }
    const next = m.queue.nextVisible(now);
    // Messages still visible after a failed invoke: without this poll they would wait for the next
    // send, which for a run's last messages never comes (the run never ended; issue 35's CI hang).
    // So too with none of this mapping's invocations in flight (no completion to poll again): the
    // queue's 120,000 in flight left no room to receive (limits/sqs.ts SQS_MAX_IN_FLIGHT).
    if (next !== undefined && next <= now && (failedInvoke || m.inFlight === 0)) this.#schedulePoll(m, now + ESM_RETRY_AFTER_ERROR_MS);
    else if (next !== undefined && next > now) this.#schedulePoll(m, next);
  }

  /** A cold start when this invocation needs more environments than the function has had. */
  #environment(fn: FunctionSpec): number {
    const inFlight = this.pools.inFlight(fn.name);
    add(this.stats.invocations, fn.name, 1);
    this.stats.peak[fn.name] = Math.max(this.stats.peak[fn.name] ?? 0, inFlight);
    if (inFlight <= (this.#environments.get(fn.name) ?? 0)) return 0;
    this.#environments.set(fn.name, inFlight);
    add(this.stats.coldStarts, fn.name, 1);
    return fn.coldStartMs;
  }

  async #invoke(m: Mapping, batch: SqsMessage<unknown>[], startMs: number): Promise<void> {
    // Lambda's pollers do not start a mapping's invocations in lockstep: a few ms apart.
    const inv: Invocation = {
      fn: m.fn.name,
      startMs,
      elapsedMs: this.#environment(m.fn) + 20 * this.#random(),
      parallelMs: 0,
      // Lambda ends the invocation at its timeout: writes it would make later never happen (virtual-time.ts assertAlive).
      deadlineMs: startMs + m.fn.timeoutMs,
      chain: chainOf(
        m.fn.name,
        batch.map((b) => b.chain),
      ),
    };
    const event: SQSEvent = { Records: batch.map((message) => sqsRecord(message, m.queue.name)) };
    let failed: Set<string>;
    try {
      const out = await this.time.within(inv, () => m.handler(event, lambdaContext(m.fn)));
      failed = new Set((out?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch {
      failed = new Set(batch.map((b) => b.id));
    }
    const wanted = Math.max(inv.elapsedMs, inv.parallelMs) + m.fn.overheadMs * (0.5 + this.#random());
    const { billedMs, timedOut } = applyTimeout(wanted, m.fn.timeoutMs);
    if (timedOut) {
      this.stats.timeouts += 1;
      failed = new Set(batch.map((b) => b.id));
    }
    add(this.stats.gbSeconds, m.fn.name, (billedMs / 1000) * (m.fn.memoryMb / 1024));
    this.time.at(startMs + billedMs, () => {
      this.pools.release(m.fn.name);
      m.inFlight -= 1;
      // ASSUMED, not documented by AWS: the processed messages go in DeleteMessageBatch calls, one
      // request per 10 (SQS bills a batch request as one). AWS's Lambda guide ("Using Lambda with
      // Amazon SQS") says only that "Lambda deletes its messages from the queue" and names no API;
      // the mapping's code is not public. The evidence is an emulator's: LocalStack's mapping
      // (localstack/localstack 17593584f87989541e14b1d8ec2671f9c3753988,
      // localstack/services/lambda_/event_source_listeners/sqs_event_source_listener.py,
      // _send_event_to_lambda.delete_messages) deletes a batch's processed messages with one
      // delete_message_batch. Were AWS to delete per message, SQS would be ~1.7 requests an item more
      // (the per-message count this simulation used before issue 35's 35o: 2.35 of 3.68 per item).
      for (const message of batch) if (failed.has(message.id)) m.queue.fail(message);
      m.queue.deleteBatch(batch.filter((message) => !failed.has(message.id)));
      this.#schedulePoll(m, this.time.now());
    });
  }

  /**
   * A synchronous invocation from inside a running one (the judge's InvokeCommand): the
   * function's state, its payload limit and its concurrency, then `run` for its answer and
   * virtual duration; the caller waits (its invocation's time grows by the callee's).
   * @throws errors named as the Invoke API names them (TooManyRequestsException, ResourceNotReadyException, ResourceConflictException, RequestTooLargeException)
   */
  async invokeSync(
    fn: FunctionSpec,
    payloadBytes: number,
    run: () => Promise<{ payload: string; durationMs: number; functionError?: string }>,
  ): Promise<{ payload: string; functionError?: string }> {
    const now = this.time.now();
    // A caller past its own deadline was stopped before it could invoke.
    this.time.assertAlive(`invoke ${fn.name}`);
    checkInvokePayload(payloadBytes);
    const state = this.states.invoke(fn.name, now);
    if (state !== 'Active') throw notActiveError(fn.name, state);
    if (!this.pools.tryAcquire(fn.name)) {
      add(this.stats.throttles, fn.name, 1);
      throw Object.assign(new Error(`Rate Exceeded (${fn.name})`), { name: 'TooManyRequestsException' });
    }
    const cold = this.#environment(fn);
    const answer = await run();
    const { billedMs, timedOut } = applyTimeout(cold + answer.durationMs + fn.overheadMs, fn.timeoutMs);
    if (timedOut) this.stats.timeouts += 1;
    add(this.stats.gbSeconds, fn.name, (billedMs / 1000) * (fn.memoryMb / 1024));
    this.time.spend(billedMs);
    this.time.at(now + billedMs, () => this.pools.release(fn.name));
    if (timedOut) return { payload: JSON.stringify({ errorType: 'Sandbox.Timedout', errorMessage: 'Task timed out' }), functionError: 'Unhandled' };
    const out = invokeResponse(answer);
    return out.functionError === undefined ? { payload: out.payload } : { payload: out.payload, functionError: out.functionError };
  }
  /**
   * An asynchronous invocation from inside a running one (the judge handing off, InvocationType
   * Event): the caller pays only the API call; Lambda queues the event, runs `run` when the
   * function has concurrency and is Active (retrying throttles and Inactive, as its internal
   * queue does, until the event's maximum age), bills the function, then sends the invocation
   * record to `destination` (on success and on failure alike, as the runner's EventInvokeConfig
   * does: infra/runners.ts) — the record's shape as the Lambda developer guide shows it
   * ("Capturing records of Lambda asynchronous invocations"). A record over the queue's
   * message size is not delivered (DestinationDeliveryFailures). Retries are 0 (the runner's config).
   * @throws Error named RequestTooLargeException over the 1 MB asynchronous payload ("Lambda quotas")
   */
  invokeAsync(
    fn: FunctionSpec,
    payload: string,
    run: () => Promise<{ payload: string; durationMs: number; functionError?: string }>,
    destination: SimSqsQueue<unknown>,
    maxEventAgeMs = 6 * 3_600_000,
  ): void {
    this.time.assertAlive(`invoke ${fn.name} (Event)`);
    const bytes = Buffer.byteLength(payload, 'utf8');
    if (bytes > ASYNC_PAYLOAD_BYTES)
      throw Object.assign(new Error(`request of ${bytes} bytes exceeds ${ASYNC_PAYLOAD_BYTES}`), { name: 'RequestTooLargeException' });
    const queuedAt = this.time.now();
    this.#countReceived(fn.name, queuedAt);
    const chain = chainOf(fn.name, [this.time.invocation()?.chain ?? {}]);
    this.time.spend(20); // the Invoke call's 202
    const requestId = `${fn.name}-async-${(this.#asyncSeq += 1)}`;
    const record = (condition: string, answer?: { payload: string; functionError?: string }) => ({
      version: '1.0',
      timestamp: this.time.date().toISOString(),
      requestContext: { requestId, functionArn: `arn:aws:lambda:us-east-1:123456789012:function:${fn.name}:$LATEST`, condition, approximateInvokeCount: 1 },
      requestPayload: JSON.parse(payload) as unknown,
      responseContext: { statusCode: 200, executedVersion: '$LATEST', ...(answer?.functionError ? { functionError: answer.functionError } : {}) },
      ...(answer ? { responsePayload: jsonOr(answer.payload) } : {}),
    });
    const deliver = (body: ReturnType<typeof record>): void => {
      const size = Buffer.byteLength(JSON.stringify(body), 'utf8');
      try {
        checkMessageSize(size, destination.maxMessageBytes);
      } catch {
        this.stats.destinationDeliveryFailures += 1;
        return;
      }
      const now = this.time.now();
      destination.send(body, size, now, chain);
      this.stats.destinationRecords += 1;
      this.wake(destination, now);
    };
    const attempt = async (at: number, delayMs: number): Promise<void> => {
      if (at - queuedAt > maxEventAgeMs) return deliver(record('EventAgeExceeded'));
      if (this.states.invoke(fn.name, at) !== 'Active' || !this.pools.tryAcquire(fn.name)) {
        this.stats.asyncRetries += 1;
        // "The retry interval increases exponentially from 1 second after the first attempt to a maximum of 5 minutes"
        // ("How Lambda handles errors and retries with asynchronous invocation", Lambda developer guide, read 2026-12-07).
        this.time.at(at + delayMs, () => attempt(at + delayMs, Math.min(delayMs * 2, 300_000)));
        return;
      }
      const inv: Invocation = { fn: fn.name, startMs: at, elapsedMs: this.#environment(fn), parallelMs: 0, deadlineMs: at + fn.timeoutMs, chain };
      const answer = await this.time.within(inv, run);
      const { billedMs, timedOut } = applyTimeout(inv.elapsedMs + answer.durationMs + fn.overheadMs, fn.timeoutMs);
      if (timedOut) this.stats.timeouts += 1;
      add(this.stats.gbSeconds, fn.name, (billedMs / 1000) * (fn.memoryMb / 1024));
      this.time.at(at + billedMs, () => {
        this.pools.release(fn.name);
        if (timedOut)
          deliver(
            record('RetriesExhausted', {
              payload: JSON.stringify({ errorType: 'Sandbox.Timedout', errorMessage: 'Task timed out' }),
              functionError: 'Unhandled',
            }),
          );
        else deliver(record(answer.functionError ? 'RetriesExhausted' : 'Success', answer));
      });
    };
    // Lambda's internal queue hands the event to the function a moment later.
    this.time.at(queuedAt + 20, () => attempt(queuedAt + 20, 1_000));
  }

  #asyncSeq = 0;

  /**
   * The function's `AsyncEventsReceived` as CloudWatch would answer GetMetricData (Sum, one-minute
   * periods): the events Lambda queued, counted in the minute they were queued, each point at its
   * minute's start; a minute without events has no point ("Types of metrics for Lambda functions",
   * asynchronous invocation metrics; read 2026-12-07). What the watchdog reads (layers/aws/lambda-async-events.ts).
   */
  asyncEventsReceived(fn: string): { at: Date; count: number }[] {
    return [...(this.#received.get(fn) ?? new Map<number, number>())]
      .sort(([a], [b]) => a - b)
      .map(([minute, count]) => ({ at: new Date(this.time.epochMs + minute * 60_000), count }));
  }

  /**
   * Holds every concurrency unit `fn` has left from `fromMs` for `forMs` (virtual): another run's
   * work on the same function — e.g. the Fargate lane's judges invoking the same runner
   * synchronously (infra/runners.ts attachJudge) — so this run's asynchronous events are throttled
   * and wait in Lambda's queue all that time.
   */
  hold(fn: string, fromMs: number, forMs: number): void {
    this.time.at(fromMs, () => {
      let held = 0;
      while (this.pools.tryAcquire(fn)) held += 1;
      this.time.at(fromMs + forMs, () => {
        for (let i = 0; i < held; i++) this.pools.release(fn);
      });
    });
  }

  readonly #received = new Map<string, Map<number, number>>();

  #countReceived(fn: string, atMs: number): void {
    const minutes = this.#received.get(fn) ?? new Map<number, number>();
    const minute = Math.floor((this.time.epochMs + atMs) / 60_000) - Math.floor(this.time.epochMs / 60_000);
    minutes.set(minute, (minutes.get(minute) ?? 0) + 1);
    this.#received.set(fn, minutes);
  }
}

function jsonOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The chain an invocation continues: the longest of its messages', plus itself. */
function chainOf(fn: string, chains: Readonly<Record<string, number>>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const chain of chains) for (const [name, n] of Object.entries(chain)) out[name] = Math.max(out[name] ?? 0, n);
  out[fn] = (out[fn] ?? 0) + 1;
  return out;
}

function sqsRecord(message: SqsMessage<unknown>, queue: string): SQSEvent['Records'][number] {
  return {
    messageId: message.id,
    receiptHandle: message.id,
    body: JSON.stringify(message.body),
    attributes: { ApproximateReceiveCount: String(message.receives), SentTimestamp: '0', SenderId: 'sim', ApproximateFirstReceiveTimestamp: '0' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:123456789012:${queue}`,
    awsRegion: 'us-east-1',
  };
}

function lambdaContext(fn: FunctionSpec): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: fn.name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${fn.name}`,
    memoryLimitInMB: String(fn.memoryMb),
    awsRequestId: 'sim',
    logGroupName: `/aws/lambda/${fn.name}`,
    logStreamName: 'sim',
    getRemainingTimeInMillis: () => fn.timeoutMs,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * Up to `batchSize` visible messages of `queue`, received {@link SQS_BATCH_MAX} at most at a time:
 * a mapping's poller gathers a batch above 10 (generate's, generate-mapping.ts) from several receives.
 */
function gatherBatch(queue: SimSqsQueue<unknown>, batchSize: number, now: number): SqsMessage<unknown>[] {
  const batch: SqsMessage<unknown>[] = [];
  while (batch.length < batchSize) {
    const received = queue.receive(Math.min(SQS_BATCH_MAX, batchSize - batch.length), now);
    if (received.length === 0) break;
    batch.push(...received);
  }
  return batch;
}
