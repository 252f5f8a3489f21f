// A runner that is throttled or not yet Active is no verdict: executeJob throws the
// TransientError on (the cloud stage then fails the queue message, which comes back), while any
// other harness failure is tried once more and recorded SE.
import { describe, expect, it } from 'vitest';
import { HarnessError, TransientError } from '#core/errors.ts';
import type { ExecutionJob } from '#core/ports.ts';
import { executeJob } from '#sandbox/executor.ts';

const job = { scorer: 'io-tests', language: 'python', code: 'print(1)', task: { kind: 'io-tests', tests: [{}, {}] } } as unknown as ExecutionJob;
const isolation = { label: 'sandbox', failed: 'lambda-runner' };

describe('executeJob', () => {
  it('throws a TransientError on without a second attempt and without a verdict', async () => {
    let attempts = 0;
    const scoreOnce = () => {
      attempts += 1;
      return Promise.reject(new TransientError('runner-python not invocable now (TooManyRequestsException)'));
    };
    await expect(executeJob(job, scoreOnce, isolation)).rejects.toBeInstanceOf(TransientError);
    expect(attempts).toBe(1);
  });

  it('records SE after a second failed attempt of any other harness failure', async () => {
    let attempts = 0;
    const scoreOnce = () => {
      attempts += 1;
      return Promise.reject(new HarnessError('runner answered no JSON'));
    };
    const outcome = await executeJob(job, scoreOnce, isolation);
    expect(outcome).toMatchObject({ verdict: 'SE', testsTotal: 2, isolation: 'lambda-runner', error: 'runner answered no JSON' });
    expect(attempts).toBe(2);
  });
});
