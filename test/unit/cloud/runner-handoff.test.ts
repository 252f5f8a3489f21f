// The judge's asynchronous hand-off, at the scorer: each runner job the scorer asks for is
// handed off (HandedOff carries the runner's event), the "runner" answers it, and Lambda's
// invocation record (the shape the Lambda developer guide shows in "Capturing records of
// Lambda asynchronous invocations") brings the answer back to a continuation that scores the
// item again from the start. The verdicts are the synchronous judge's; a malformed or lost
// answer is the harness's error (the sample's SE), never a verdict.
import { describe, expect, it } from 'vitest';
import { HarnessError } from '#core/errors.ts';
import type { ProgramHost } from '#core/judging/io-tests-judge.ts';
import { scoreIoTests } from '#core/judging/io-tests-judge.ts';
import { LambdaProgramRunner } from '#app/cloud/lambda-runner.ts';
import { fitRun, parseWire, RunnerRequestSchema } from '#app/cloud/runner-protocol.ts';
import {
  combineHandoffs,
  continuationOf,
  continuationsOf,
  HandedOff,
  handoffInvoke,
  withHandoff,
  type BatchHandoffEvent,
  type HandoffEvent,
  type RecordedAnswer,
} from '#app/cloud/runner-handoff.ts';
import { sumTask } from '../../sandbox/helpers.ts';

const NO_HOST: ProgramHost = {
  prepare: () => Promise.reject(new Error('the judge compiles nothing for a tokens checker')),
  prepareUnitTest: () => Promise.reject(new Error('unused')),
};

/** A `cat` runner on the wire protocol: each run's stdout is its stdin. */
function answer(payload: string): string {
  const request = parseWire(RunnerRequestSchema, JSON.parse(payload), 'request');
  const runs = request.runs.map((r) =>
    fitRun(
      { termination: 'exited', exitCode: 0, signal: null, stdout: r.stdin, stderr: '', files: {}, runMs: 1, cpuMs: 1, peakMemoryKb: 1000 },
      request.maxRunOutputBytes,
    ),
  );
  return JSON.stringify({ ok: true, compileMs: 5, runs, isolation: 'rlimits+seccomp+landlock', integrity: { clean: true, survivors: [], changes: [] } });
}

const record = (event: unknown, condition: string, responsePayload?: unknown, functionError?: string) => ({
  version: '1.0',
  timestamp: '2026-12-06T23:00:00.000Z',
  requestContext: {
    requestId: 'r-1',
    functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:runner-python:$LATEST',
    condition,
    approximateInvokeCount: 1,
  },
  requestPayload: event,
  responseContext: { statusCode: 200, executedVersion: '$LATEST', ...(functionError ? { functionError } : {}) },
  ...(responsePayload === undefined ? {} : { responsePayload }),
});

const job = (tests: { input: string; output: string }[]) => ({ task: sumTask({ name: undefined, tests }), language: 'python', code: 'cat' });
const tests = Array.from({ length: 6 }, (_, i) => ({ input: `${i} ${'x'.repeat(1000)}\n`, output: i === 4 ? 'wrong\n' : `${i} ${'x'.repeat(1000)}\n` }));

/** Scores with hand-offs until a verdict, the runner answering each event with `respond`; counts synchronous calls. */
async function handOffUntilDone(respond: (event: { request: unknown }) => Record<string, unknown>, budgetBytes?: number) {
  let sync = 0;
  const runner = new LambdaProgramRunner({
    invoke: handoffInvoke((payload) => ((sync += 1), Promise.resolve({ payload: answer(payload) }))),
    functionName: 'runner-python',
    payloadBudgetBytes: 4000,
  });
  const message = { item: 'the execute message' };
  let answers: RecordedAnswer[] = [];
  for (let handoffs = 0; ; handoffs++) {
    try {
      const outcome = await withHandoff(message, answers, () => scoreIoTests(job(tests), NO_HOST, { runner }), budgetBytes);
      return { outcome, handoffs, sync };
    } catch (error) {
      if (!(error instanceof HandedOff)) throw error;
      // The event goes out as JSON and comes back inside the record as Lambda parsed it.
      const event = JSON.parse(JSON.stringify(error.event)) as { request: unknown; handoff: { message: unknown } };
      expect(event.handoff.message).toEqual(message);
      const next = continuationOf(JSON.parse(JSON.stringify(respond(event))));
      expect(next.message).toEqual(message);
      answers = next.answers;
    }
  }
}

describe('asynchronous hand-off to the runner', () => {
  it('finishes the item from recorded answers with the synchronous verdict, one hand-off per runner invocation and no synchronous call', async () => {
    const syncRunner = new LambdaProgramRunner({
      invoke: (payload) => Promise.resolve({ payload: answer(payload) }),
      functionName: 'runner-python',
      payloadBudgetBytes: 4000,
    });
    const expected = await scoreIoTests(job(tests), NO_HOST, { runner: syncRunner });
    expect(expected).toMatchObject({ verdict: 'WA', testsTotal: 6 });
    const { outcome, handoffs, sync } = await handOffUntilDone((event) => record(event, 'Success', JSON.parse(answer(JSON.stringify(event.request)))));
    expect(outcome).toEqual(expected);
    expect(handoffs).toBeGreaterThan(1); // the tests span several invocations
    expect(sync).toBe(0);
  });

  it("takes a malformed answer for the harness's error (the sample's SE), never a verdict", async () => {
    await expect(handOffUntilDone((event) => record(event, 'Success', { ok: true, runs: 'all passed' }))).rejects.toThrow(/malformed runner response/);
  });

  it("takes a lost invocation (its event aged out: no response) and a failed runner for the runner's failure", async () => {
    await expect(handOffUntilDone((event) => record(event, 'EventAgeExceeded'))).rejects.toThrow(HarnessError);
    await expect(handOffUntilDone((event) => record(event, 'EventAgeExceeded'))).rejects.toThrow(/ended without an answer \(EventAgeExceeded\)/);
    await expect(
      handOffUntilDone((event) => record(event, 'RetriesExhausted', { errorType: 'Runtime.ExitError', errorMessage: 'exit status 75' }, 'Unhandled')),
    ).rejects.toThrow(/failed \(Unhandled\): Runtime.ExitError/);
  });

  it('makes a request that cannot fit an invocation record synchronously, as before', async () => {
    const { outcome, handoffs, sync } = await handOffUntilDone(() => {
      throw new Error('no hand-off expected');
    }, 2000);
    expect(outcome).toMatchObject({ verdict: 'WA', testsTotal: 6 });
    expect(handoffs).toBe(0);
    expect(sync).toBeGreaterThan(1);
  });

  it('refuses a replay whose request differs from the recorded one', async () => {
    const runner = new LambdaProgramRunner({ invoke: handoffInvoke(() => Promise.reject(new Error('unused'))), functionName: 'runner-python' });
    const forged: RecordedAnswer[] = [{ request: 'not-this-request', lowered: false, payload: '{}' }];
    await expect(withHandoff({}, forged, () => scoreIoTests(job(tests.slice(0, 1)), NO_HOST, { runner }))).rejects.toThrow(/replay diverged/);
  });

  it('refuses a record that carries no hand-off', () => {
    expect(() => continuationOf(record({ version: 1 }, 'Success', {}))).toThrow(/carries no hand-off/);
  });
});

describe('several samples of one task in one runner invocation (combineHandoffs, continuationsOf)', () => {
  const limits = { cpuMs: 1000, wallMs: 2000, memoryMb: 128 };
  const event = (k: number, runs = 2, wallMs = limits.wallMs): HandoffEvent => ({
    request: {
      version: 1,
      program: { kind: 'source', language: 'python', code: `print(${k})` },
      runs: Array.from({ length: runs }, () => ({ stdin: `${k}\n`, limits: { ...limits, wallMs } })),
      maxRunOutputBytes: 900_000,
    },
    handoff: { version: 1, message: { item: k }, answers: [], pending: { request: `sha-${k}`, lowered: false } },
  });

  it('puts as many as fit one record and the time budget in one batch, in order, the rest alone in the single shape', () => {
    const out = combineHandoffs([event(0), event(1), event(2), event(3)], { recordBytes: 3 * 140_000 });
    expect(out.map((e) => ('handoffs' in e ? e.handoffs.map((h) => h.message) : [e.handoff.message]))).toEqual([
      [{ item: 0 }, { item: 1 }, { item: 2 }],
      [{ item: 3 }],
    ]);
    const batch = out[0] as BatchHandoffEvent;
    // Each run's share lowered to fit, and said so (a truncated run is asked again alone).
    expect(batch.request.programs.every((p) => p.maxRunOutputBytes >= 16 * 1024 && p.maxRunOutputBytes < 900_000)).toBe(true);
    expect(batch.handoffs.every((h) => h.pending.lowered)).toBe(true);
    expect(JSON.stringify(batch).length).toBeLessThan(3 * 140_000);
    expect('request' in (out[1] as HandoffEvent) && 'program' in (out[1] as HandoffEvent).request).toBe(true);
    // Two programs of over 7 minutes each (the compile net and wall limits) do not share the runner's 14 minutes.
    expect(combineHandoffs([event(0, 1, 400_000), event(1, 1, 400_000)]).map((e) => 'handoffs' in e)).toEqual([false, false]);
  });

  it('splits a batch record per item; a failed invocation fails each item; one program error fails that item only; the single shape still reads', () => {
    const [batch] = combineHandoffs([event(0), event(1)]) as [BatchHandoffEvent];
    const good = { ok: true, compileMs: 1, runs: [], isolation: 'x', integrity: { clean: true, survivors: [], changes: [] } };
    const split = continuationsOf(record(batch, 'Success', { version: 1, programs: [good, { errorType: 'RunnerDiscarded', errorMessage: 'not run' }] }));
    expect(split.map((c) => c.message)).toEqual([{ item: 0 }, { item: 1 }]);
    expect(split.map((c) => c.answers.at(-1)?.functionError)).toEqual([undefined, 'Unhandled']);
    expect(split[0]?.answers.at(-1)).toMatchObject({ request: 'sha-0', payload: JSON.stringify(good) });
    const lost = continuationsOf(record(batch, 'EventAgeExceeded'));
    expect(lost.map((c) => c.answers.at(-1)?.functionError)).toEqual(['Lost', 'Lost']);
    const crashed = continuationsOf(record(batch, 'RetriesExhausted', { errorType: 'Runtime.ExitError', errorMessage: 'exit 1' }, 'Unhandled'));
    expect(crashed.map((c) => c.answers.at(-1)?.functionError)).toEqual(['Unhandled', 'Unhandled']);
    const single = event(5);
    expect(continuationsOf(record(single, 'Success', good))).toEqual([
      { message: { item: 5 }, answers: [{ request: 'sha-5', lowered: false, payload: JSON.stringify(good) }] },
    ]);
  });
});
