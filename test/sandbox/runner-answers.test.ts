// The judge's side of a runner function that answers badly (its environment ran model code):
// the sample is SE with the reason, the judge goes on judging, and a good answer after a bad
// one is judged as usual.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAMBDA_RUNNER_ISOLATION, LambdaProgramRunner } from '#app/cloud/lambda-runner.ts';
import type { InvokeResult } from '#aws/lambda-invoker.ts';
import { createSandboxExecutor, type SandboxExecutor } from '#sandbox/index.ts';
import { scratch, sumTask } from './helpers.ts';

const dirs = scratch('runner-answers');
const integrity = { clean: true, survivors: [], changes: [] };
const run = { termination: 'exited', exitCode: 0, signal: null, stdout: '3\n', stderr: '', files: {}, runMs: 1, cpuMs: 1, peakMemoryKb: 1 };
let next: InvokeResult = { payload: '' };
let judge: SandboxExecutor;

beforeAll(async () => {
  judge = await createSandboxExecutor({
    concurrency: 1,
    cacheDir: dirs.cacheDir,
    workRoot: dirs.workRoot,
    runner: new LambdaProgramRunner({ invoke: async () => next, functionName: 'runner-c' }),
    runnerIsolation: LAMBDA_RUNNER_ISOLATION,
  });
}, 600_000);

afterAll(async () => {
  await judge?.close();
  rmSync(dirs.root, { recursive: true, force: true });
});

const execute = () =>
  judge.execute({ scorer: 'io-tests', task: sumTask({ tests: [{ input: '1 2\n', output: '3\n' }] }), language: 'c', code: 'int main(void){return 0;}\n' });

describe('a judge whose runner answers badly', () => {
  it.each([
    ['garbage', { payload: '\u0000\u0001 not json' }, /runner-c answered no JSON/],
    [
      'a run claiming its own verdict',
      { payload: JSON.stringify({ ok: true, compileMs: 1, runs: [{ ...run, verdict: 'OK' }], isolation: 'x', integrity }) },
      /malformed runner response: runs\.0: Unrecognized key: "verdict"/,
    ],
    ['fewer runs than asked', { payload: JSON.stringify({ ok: true, compileMs: 1, runs: [], isolation: 'x', integrity }) }, /runner-c answered 0 of 1 runs/],
  ])('records SE with the reason for %s', async (_what, answer, reason) => {
    next = answer;
    const outcome = await execute();

    expect(outcome.verdict).toBe('SE');
    expect(outcome.error).toMatch(reason);
  });

  it('judges the next well-formed answer as usual', async () => {
    next = { payload: JSON.stringify({ ok: true, compileMs: 1, runs: [run], isolation: 'rlimits', integrity }) };

    expect(await execute()).toMatchObject({ verdict: 'OK', testsPassed: 1, isolation: 'lambda-runner+rlimits' });
  });
});
