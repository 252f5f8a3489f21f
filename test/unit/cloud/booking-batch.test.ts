// A generate invocation's cost bookings made together (layers/app/cloud/booking-batch.ts) by the
// invocation's SendGate, as functions/generate/handler.ts wires them: the bookings wait until every
// handler still running waits too, go to the ledger in ONE addCosts per run, and before any execute
// message; a failed addCosts fails its calls (TransientError: the messages come back, never SE); a
// capped run's bookings and a booking without an id are not held.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TransientError } from '#core/errors.ts';
import type { CostBooking, RunLedger } from '#core/ports.ts';
import { costGuardOf, generateItem } from '#core/run/engine.ts';
import { BookingBatch } from '#app/cloud/booking-batch.ts';
import { SendGate } from '#app/cloud/send-gate.ts';
import { FileRunLedger } from '#local/index.ts';
import { abricotFromRows, plannedRun } from '../../support/planned-run.ts';

interface Observed {
  ledger: RunLedger;
  /** What reached the ledger and the queue, in order: `addCosts r1 a,b`, `addCost r1 a`, `trySpend r1 a`, `send a,b`. */
  events: string[];
}

/** `ledger` with its cost calls written to `events`; addCosts of `failing` runs rejects. */
function observe(ledger: RunLedger, events: string[], failing: string[] = []): RunLedger {
  return new Proxy(ledger, {
    get(target, name) {
      if (name === 'addCosts')
        return (runId: string, bookings: readonly CostBooking[]) => {
          events.push(`addCosts ${runId} ${bookings.map((b) => b.bookingId).join(',')}`);
          return failing.includes(runId) ? Promise.reject(new Error('ledger unavailable')) : target.addCosts(runId, bookings);
        };
      if (name === 'addCost' || name === 'trySpend')
        return (runId: string, usd: number, ...rest: unknown[]) => {
          events.push(`${name} ${runId} ${String(rest.at(-1))}`);
          return (target[name] as (...a: unknown[]) => Promise<unknown>).call(target, runId, usd, ...rest);
        };
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A file ledger with runs r1 and r2, observed. */
async function observed(failing: string[] = []): Promise<Observed> {
  const inner = new FileRunLedger(mkdtempSync(join(tmpdir(), 'booking-batch-')));
  for (const runId of ['r1', 'r2'])
    await inner.createRun({ runId, benchmark: 'rocode', model: 'm', status: 'running', items: 10, createdAt: '2026-01-01T00:00:00.000Z' });
  const events: string[] = [];
  return { ledger: observe(inner, events, failing), events };
}

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

describe('BookingBatch: a generate invocation books its model calls together', () => {
  it('holds the bookings while a batch-mate still calls its model; then ONE addCosts for the run, and only then the execute messages', async () => {
    const { ledger, events } = await observed();
    const gate = new SendGate(new BookingBatch());
    const booked = gate.bookings!.over(ledger);
    const queue = gate.sender<string>({ send: (m) => (events.push(`send ${m.map((x) => x.id).join(',')}`), Promise.resolve()) });
    // As generate's handlers: each books its call's settlement, then sends its execute message.
    const item = (id: string, callMs: number) =>
      gate.run(async () => {
        await tick(callMs);
        await booked.addCost('r1', 0.25, `${id}/settle`);
        await queue.send([{ id, body: id }]);
      });

    await Promise.all([item('a', 1), item('b', 30), item('c', 1), gate.run(() => Promise.resolve('recorded already: skipped'))]);

    // In the order the calls settled: b's call was the slow one.
    expect(events).toEqual(['addCosts r1 a/settle,c/settle,b/settle', 'send a,c,b']);
    expect((await ledger.getRun('r1'))?.costUsd).toBe(0.75);
  });

  it('books each run of the invocation in its own addCosts; a run whose addCosts fails fails its calls with a TransientError and sends nothing of theirs', async () => {
    const { ledger, events } = await observed(['r2']);
    const gate = new SendGate(new BookingBatch());
    const booked = gate.bookings!.over(ledger);
    const queue = gate.sender<string>({ send: (m) => (events.push(`send ${m.map((x) => x.id).join(',')}`), Promise.resolve()) });
    const item = (runId: string, id: string) =>
      gate.run(async () => {
        await tick();
        await booked.addCost(runId, 0.5, `${id}/settle`);
        await queue.send([{ id, body: id }]);
      });

    const results = await Promise.allSettled([item('r1', 'a'), item('r2', 'b'), item('r1', 'c'), item('r2', 'd')]);

    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(TransientError);
    expect(events.slice(0, 2).sort()).toEqual(['addCosts r1 a/settle,c/settle', 'addCosts r2 b/settle,d/settle']);
    expect(events.slice(2)).toEqual(['send a,c']);
    expect((await ledger.getRun('r1'))?.costUsd).toBe(1);
    expect((await ledger.getRun('r2'))?.costUsd).toBe(0);
  });

  it("books a redelivered call's settlement once: a batch repeated, or an id twice in one batch", async () => {
    const { ledger } = await observed();
    for (let delivery = 0; delivery < 2; delivery++) {
      const gate = new SendGate(new BookingBatch());
      const booked = gate.bookings!.over(ledger);
      await Promise.all(['a', 'b', 'a'].map((id) => gate.run(() => booked.addCost('r1', 0.125, `${id}/settle`))));
    }
    expect((await ledger.getRun('r1'))?.costUsd).toBe(0.25);
  });

  it('sends a booking without an id (an item run again on purpose) and a trySpend (a capped run) at once, never held behind a batch-mate', async () => {
    const { ledger, events } = await observed();
    const gate = new SendGate(new BookingBatch());
    const booked = gate.bookings!.over(ledger);
    let slowDone = false;
    const slow = gate.run(async () => {
      await tick(40);
      slowDone = true;
    });

    await gate.run(async () => {
      await booked.addCost('r1', 0.5);
      await booked.trySpend('r2', 0.25, 1, 'x/reserve');
    });

    expect(slowDone).toBe(false);
    expect(events).toEqual(['addCost r1 undefined', 'trySpend r2 x/reserve']);
    await slow;
  });
});

describe('generate with the batch: the engine books through it', () => {
  const rows = Array.from({ length: 3 }, (_, i) => ({ id: `r${i}`, target_token: 'mare', text: `Il mare numero ${i}.`, abs_mean: i / 3, inc_mean: 0.5 }));
  const provider = {
    id: 'memory:m',
    kind: 'memory',
    model: 'm',
    generate: () => Promise.resolve({ text: '3', usage: { promptTokens: 100, completionTokens: 25 }, latencyMs: 1 }),
  };

  async function planned(capUsd?: number) {
    const { ctx, plan, ledger } = await plannedRun(
      abricotFromRows(rows),
      provider,
      { likertMode: 'digit-parse', ...(capUsd !== undefined ? { maxCostUsd: capUsd } : {}) },
      { costOf: (u) => (u.promptTokens + u.completionTokens) / 1000, projectCost: () => 0.5 },
      { prefix: 'booking-generate-' },
    );
    const events: string[] = [];
    await ledger.createRun({ runId: 'run-1', benchmark: 'abricot', model: 'm', status: 'running', items: 3, createdAt: '2026-01-01T00:00:00.000Z' });
    const observedCtx = { ...ctx, ledger: observe(ctx.ledger, events) };
    // As a cloud context (context.ts): the run's one cost guard exists before any invocation, over the container's ledger.
    costGuardOf(observedCtx);
    return { ctx: observedCtx, plan, events };
  }

  it("an uncapped run's calls of one invocation are booked in ONE addCosts, at their exact cost", async () => {
    const { ctx, plan, events } = await planned();
    const gate = new SendGate(new BookingBatch());

    const generated = await Promise.all(plan.items.map((item) => gate.run(() => generateItem({ ...ctx, ledger: gate.bookings!.over(ctx.ledger) }, item))));

    expect(generated.every((g) => g.failure === undefined)).toBe(true);
    expect(events).toEqual([`addCosts run-1 ${plan.items.map((i) => `run-1/${i.taskId}/${i.sample}/settle`).join(',')}`]);
    expect((await ctx.ledger.getRun('run-1'))?.costUsd).toBe(plan.items.length * 0.125);
  });

  it('a booking the ledger did not take fails the item (TransientError: its message comes back), never an SE generation', async () => {
    const { ctx, plan } = await planned();
    const failing: RunLedger = new Proxy(ctx.ledger, {
      get: (target, name) => (name === 'addCosts' ? () => Promise.reject(new Error('throttled')) : Reflect.get(target, name, target)),
    });
    const gate = new SendGate(new BookingBatch());

    const results = await Promise.allSettled(plan.items.map((item) => gate.run(() => generateItem({ ...ctx, ledger: gate.bookings!.over(failing) }, item))));

    for (const result of results) expect((result as PromiseRejectedResult).reason).toBeInstanceOf(TransientError);
  });

  it('a booking no retry can clear (AccessDenied: a broken deployment) fails its calls with that error, not transiently: no call made again and again', async () => {
    const inner = new FileRunLedger(mkdtempSync(join(tmpdir(), 'booking-batch-')));
    await inner.createRun({ runId: 'r1', benchmark: 'rocode', model: 'm', status: 'running', items: 10, createdAt: '2026-01-01T00:00:00.000Z' });
    // As the AWS SDK v3 throws it (a ServiceException: name, $fault, $metadata), wrapped by the ledger's HarnessError.
    const denied = Object.assign(new Error('User is not authorized to perform: dynamodb:TransactWriteItems'), {
      name: 'AccessDeniedException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $fault: 'client', $metadata: { httpStatusCode: 400 } });
    // DynamoDB's conflict (HTTP 400, in none of the SDK's retry lists) and a server fault are for a later attempt too.
    const conflict = Object.assign(new Error('Transaction is ongoing'), {
      name: 'TransactionConflictException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    const server = Object.assign(new Error('Internal'), { name: 'InternalServerError', $fault: 'server', $metadata: { httpStatusCode: 500 } });
    for (const [cause, transient] of [
      [denied, false],
      [throttled, true],
      [conflict, true],
      [server, true],
    ] as const) {
      const ledger = new Proxy(inner, {
        get(target, name) {
          if (name === 'addCosts') return () => Promise.reject(new Error('DynamoDB addCosts failed', { cause }));
          const value: unknown = Reflect.get(target, name, target);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      const batch = new BookingBatch();
      const outcome = await batch
        .over(ledger)
        .addCost('r1', 0.01, 'call-1/settle')
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(outcome instanceof TransientError, cause.name).toBe(transient);
      if (!transient) expect((outcome as Error).message).toBe('DynamoDB addCosts failed');
    }
  });

  it("a capped run's calls are each reserved and settled against the cap at once (trySpend), none through the batch", async () => {
    const { ctx, plan, events } = await planned(10);
    const gate = new SendGate(new BookingBatch());

    await Promise.all(plan.items.map((item) => gate.run(() => generateItem({ ...ctx, ledger: gate.bookings!.over(ctx.ledger) }, item))));

    expect(events.filter((e) => e.startsWith('addCosts') || e.startsWith('addCost '))).toEqual([]);
    // Each call's reservation (0.5) and its settlement (the 0.375 it did not spend back).
    expect(events.filter((e) => e.startsWith('trySpend'))).toHaveLength(2 * plan.items.length);
    expect((await ctx.ledger.getRun('run-1'))?.costUsd).toBeCloseTo(plan.items.length * 0.125, 12);
  });
});
