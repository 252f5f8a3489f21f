// The judge's side of the runner function over a small payload budget: runs split over
// invocations in order, an input that cannot fit refused, an output too large for its share
// asked again alone and OLE when it cannot fit at all, function errors surfaced as the
// harness's. The fake runner speaks the wire protocol (runner-protocol.ts) and answers each
// run with its stdin as stdout, times `echo` (a `cat`-like program).
import { describe, expect, it } from 'vitest';
import { HarnessError } from '#core/errors.ts';
import type { ProgramHost } from '#core/judging/io-tests-judge.ts';
import { scoreIoTests } from '#core/judging/io-tests-judge.ts';
import { LambdaProgramRunner } from '#app/cloud/lambda-runner.ts';
import { fitRun, parseWire, RunnerRequestSchema, type RunnerRequest } from '#app/cloud/runner-protocol.ts';
import { planInvocations, RUNNER_TIME_BUDGET_MS } from '#app/cloud/runner-plan.ts';
import { sumTask } from '../../sandbox/helpers.ts';

const NO_HOST: ProgramHost = {
  prepare: () => Promise.reject(new Error('the judge compiles nothing for a tokens checker')),
  prepareUnitTest: () => Promise.reject(new Error('unused')),
};

function catRunner(options: { echo?: (stdin: string) => string; compiles?: boolean; failWith?: string } = {}) {
  const requests: RunnerRequest[] = [];
  const invoke = async (payload: string) => {
    if (options.failWith) return { functionError: 'Unhandled', payload: JSON.stringify({ errorType: options.failWith, errorMessage: 'Runtime exited' }) };
    const request = parseWire(RunnerRequestSchema, JSON.parse(payload), 'request');
    requests.push(request);
    const integrity = { clean: true, survivors: [], changes: [] };
    if (options.compiles === false)
      return { payload: JSON.stringify({ ok: false, diagnostics: 'syntax error', compileMs: 5, isolation: 'rlimits+seccomp+landlock', integrity }) };
    const runs = request.runs.map((r) =>
      fitRun(
        {
          termination: 'exited',
          exitCode: 0,
          signal: null,
          stdout: (options.echo ?? ((s) => s))(r.stdin),
          stderr: '',
          files: {},
          runMs: 1,
          cpuMs: 1,
          peakMemoryKb: 1000,
        },
        request.maxRunOutputBytes,
      ),
    );
    return { payload: JSON.stringify({ ok: true, compileMs: 5, runs, isolation: 'rlimits+seccomp+landlock', integrity }) };
  };
  return { requests, runner: new LambdaProgramRunner({ invoke, functionName: 'runner-python', payloadBudgetBytes: 4000 }) };
}

const job = (tests: { input: string; output: string }[]) => ({
  task: sumTask({ name: undefined, tests }),
  language: 'python',
  code: 'import sys\nsys.stdout.write(sys.stdin.read())\n',
});

describe('LambdaProgramRunner', () => {
  it('splits runs whose inputs exceed one invocation over several, in order, and records the runner level', async () => {
    const tests = Array.from({ length: 6 }, (_, i) => ({ input: `${i} ${'x'.repeat(1000)}\n`, output: `${i} ${'x'.repeat(1000)}\n` }));
    const { requests, runner } = catRunner();
    const outcome = await scoreIoTests(job(tests), NO_HOST, { runner });
    expect(outcome).toMatchObject({ verdict: 'OK', testsPassed: 6, testsTotal: 6, isolation: 'lambda-runner+rlimits+seccomp+landlock' });
    expect(requests.length).toBeGreaterThan(1);
    expect(requests.flatMap((r) => r.runs.map((x) => x.stdin))).toEqual(tests.map((t) => t.input));
    for (const r of requests) expect(JSON.stringify(r).length).toBeLessThanOrEqual(4000);
  });

  it('refuses a test whose input cannot fit in one invocation, naming the sizes (SE, never sent)', async () => {
    const { requests, runner } = catRunner();
    await expect(scoreIoTests(job([{ input: 'y'.repeat(5000), output: 'y' }]), NO_HOST, { runner })).rejects.toThrow(
      /test 1's input \(\d+ bytes as JSON\).*exceeds the 4000 bytes/,
    );
    expect(requests).toEqual([]);
  });

  it('asks again alone for an output over its share, and records OLE when it cannot fit even then', async () => {
    const tests = [
      { input: 'small\n', output: 'small\n' },
      { input: 'medium\n', output: `${'m'.repeat(2500)}\n` },
      { input: 'huge\n', output: 'h' },
    ];
    const echo = (stdin: string) => (stdin === 'medium\n' ? `${'m'.repeat(2500)}\n` : stdin === 'huge\n' ? 'h'.repeat(9000) : stdin);
    const { requests, runner } = catRunner({ echo });
    const outcome = await scoreIoTests(job(tests), NO_HOST, { runner });
    expect(outcome.tests?.map((t) => t.verdict)).toEqual(['OK', 'OK', 'OLE']);
    expect(requests.map((r) => r.runs.map((x) => x.stdin))).toEqual([['small\n', 'medium\n', 'huge\n'], ['medium\n'], ['huge\n']]);
  });

  it("sends the job's toolchain options with every request, since the runner compiles", async () => {
    const tests = Array.from({ length: 6 }, (_, i) => ({ input: `${i} ${'x'.repeat(1000)}\n`, output: `${i} ${'x'.repeat(1000)}\n` }));
    const { requests, runner } = catRunner();
    await scoreIoTests({ ...job(tests), toolchain: { languageVersion: '2.0' } }, NO_HOST, { runner });
    expect(requests.length).toBeGreaterThan(1);
    for (const r of requests) expect(r.toolchain).toEqual({ languageVersion: '2.0' });
    const plain = catRunner();
    await scoreIoTests(job([{ input: '1\n', output: '1\n' }]), NO_HOST, { runner: plain.runner });
    expect(plain.requests[0]?.toolchain).toBeUndefined();
  });

  it('gives CE with the runner level when the program does not compile', async () => {
    const { runner } = catRunner({ compiles: false });
    expect(await scoreIoTests(job([{ input: '1\n', output: '1\n' }]), NO_HOST, { runner })).toMatchObject({
      verdict: 'CE',
      error: 'syntax error',
      isolation: 'lambda-runner+rlimits+seccomp+landlock',
    });
  });

  it('surfaces a failed invocation (an environment that ended mid-item) as a harness error, never a verdict', async () => {
    const { runner } = catRunner({ failWith: 'Runtime.ExitError' });
    const scored = scoreIoTests(job([{ input: '1\n', output: '1\n' }]), NO_HOST, { runner });
    await expect(scored).rejects.toBeInstanceOf(HarnessError);
    await expect(scored).rejects.toThrow(/runner-python failed \(Unhandled\): Runtime.ExitError/);
  });
});

describe('a malformed runner answer', () => {
  const integrity = { clean: true, survivors: [], changes: [] };
  const run = { termination: 'exited', exitCode: 0, signal: null, stdout: '1\n', stderr: '', files: {}, runMs: 1, cpuMs: 1, peakMemoryKb: 1 };
  const answer = (runs: unknown[]) => JSON.stringify({ ok: true, compileMs: 5, runs, isolation: 'rlimits', integrity });

  // The runner's environment ran model code: whatever it answers is read strictly, and anything off is the harness's fault.
  it.each([
    ['not JSON', { payload: 'Segmentation fault' }, /runner-python answered no JSON: "Segmentation fault"/],
    ['JSON null', { payload: 'null' }, /malformed runner response/],
    ['a run with a field of the wrong type', { payload: answer([{ ...run, exitCode: '0' }]) }, /malformed runner response: runs\.0\.exitCode/],
    [
      'a run carrying a verdict of its own',
      { payload: answer([{ ...run, verdict: 'OK' }]) },
      /malformed runner response: runs\.0: Unrecognized key: "verdict"/,
    ],
    [
      'an answer with a field the protocol has not',
      { payload: JSON.stringify({ ok: true, compileMs: 5, runs: [run], isolation: 'rlimits', integrity, passed: true }) },
      /malformed runner response: \(root\): Unrecognized key: "passed"/,
    ],
    [
      'an integrity report without its fields',
      { payload: JSON.stringify({ ok: true, compileMs: 5, runs: [run], isolation: 'rlimits', integrity: { clean: true } }) },
      /malformed runner response: integrity\.survivors/,
    ],
    ['a function error that is not the error shape', { functionError: 'Unhandled', payload: 'null' }, /runner-python failed \(Unhandled\): null/],
    [
      'a function error with fields of the wrong type',
      { functionError: 'Unhandled', payload: '{"errorType":{"x":1}}' },
      /runner-python failed \(Unhandled\): \{"errorType"/,
    ],
  ])('is a harness error with its reason, never a verdict: %s', async (_what, result, reason) => {
    const runner = new LambdaProgramRunner({ invoke: async () => result, functionName: 'runner-python' });
    const scored = scoreIoTests(job([{ input: '1\n', output: '1\n' }]), NO_HOST, { runner });

    await expect(scored).rejects.toBeInstanceOf(HarnessError);
    await expect(scored).rejects.toThrow(reason);
  });
});

describe('the runner request schema', () => {
  it('has no place for an expected output', () => {
    const request = {
      version: 1,
      program: { kind: 'source', language: 'python', code: 'print(1)' },
      runs: [{ stdin: '', limits: { cpuMs: 1, wallMs: 1, memoryMb: 1 }, expected: '1\n' }],
      maxRunOutputBytes: 10,
    };
    expect(() => parseWire(RunnerRequestSchema, request, 'request')).toThrow(/runs\.0.*expected|Unrecognized key/);
  });

  it('carries toolchain options and nothing else under toolchain (no raw compiler flags)', () => {
    const request = {
      version: 1,
      program: { kind: 'source', language: 'kotlin', code: 'fun main() {}' },
      runs: [{ stdin: '', limits: { cpuMs: 1, wallMs: 1, memoryMb: 1 } }],
      maxRunOutputBytes: 10,
    };
    expect(parseWire(RunnerRequestSchema, { ...request, toolchain: { languageVersion: '2.0' } }, 'request').toolchain).toEqual({ languageVersion: '2.0' });
    expect(() => parseWire(RunnerRequestSchema, { ...request, toolchain: { kotlinFlags: ['-Xplugin=/tmp/x.jar'] } }, 'request')).toThrow(
      /toolchain.*Unrecognized key|kotlinFlags/,
    );
  });
});

describe('planInvocations', () => {
  const program = { kind: 'source' as const, language: 'cpp', code: 'int main(){}' };
  const run = (wallMs: number) => ({ stdin: '1\n', limits: { cpuMs: 1000, wallMs, memoryMb: 256 } });

  it("splits long samples so each invocation's compile plus wall limits fit the runner's time", () => {
    // 15 min timeout − 1 min spare − 2 min compile = 12 min of runs per invocation.
    const plan = planInvocations(
      program,
      Array.from({ length: 5 }, () => run(300_000)),
      { payloadBytes: 1_000_000, timeMs: RUNNER_TIME_BUDGET_MS },
    );
    expect(plan).toEqual([[0, 1], [2, 3], [4]]);
  });

  it('refuses a single run longer than an invocation can take', () => {
    expect(() => planInvocations(program, [run(RUNNER_TIME_BUDGET_MS)], { payloadBytes: 1_000_000, timeMs: RUNNER_TIME_BUDGET_MS })).toThrow(/wall limit/);
  });
});

describe('fitRun', () => {
  const run = {
    termination: 'exited' as const,
    exitCode: 1,
    signal: null,
    stdout: 'ok\n',
    stderr: 'e'.repeat(64 * 1024),
    files: {},
    runMs: 1,
    cpuMs: 1,
    peakMemoryKb: 1,
  };

  it("keeps only stderr's head, so many runs with full stderr still fit one response", () => {
    const fitted = fitRun(run, 10_000);
    expect(fitted.stdout).toBe('ok\n');
    expect(fitted.truncated).toBeUndefined();
    expect(fitted.stderr.length).toBe(2_500);
  });

  it('drops stdout and files and says so when they exceed the share', () => {
    expect(fitRun({ ...run, stdout: 'x'.repeat(20_000) }, 10_000)).toMatchObject({ stdout: '', files: {}, truncated: true });
  });
});
