// Several programs in one runner invocation (functions/runner/serve.ts serveBatch), on this
// machine's real sandbox: each program is compiled and run as it is alone — its own work
// directory, the same limits — and answered on its own. A program that crashes, spins to its
// time limit or floods its output gets its own answer and changes nothing in the others'; a
// program cannot read another's source or output; after a program leaves the environment
// unclean, the rest are not run there (each answered with an error its judge retries).
import { describe, expect, it } from 'vitest';
import type { RunnerRequest, RunnerResponse, RunnerProgramError } from '#app/cloud/runner-protocol.ts';
import type { IntegrityReport } from '#sandbox/integrity.ts';
import { serveInvocation } from '../../functions/runner/serve.ts';
import { sandboxSuite } from './helpers.ts';

const suite = sandboxSuite('runner-batch', { concurrency: 1 });
const clean: IntegrityReport = { clean: true, survivors: [], changes: [] };
const limits = { cpuMs: 2000, wallMs: 4000, memoryMb: 256 };

/** A python program with two runs (stdin "1 2" and "40 2"). */
function program(code: string): RunnerRequest {
  return {
    version: 1,
    program: { kind: 'source', language: 'python', code },
    runs: [
      { stdin: '1 2\n', limits },
      { stdin: '40 2\n', limits },
    ],
    maxRunOutputBytes: 64 * 1024,
  };
}

const SUM = '# MARKER-OF-THE-FIRST-PROGRAM\na, b = map(int, input().split())\nprint(a + b)\nopen("scratch.txt", "w").write("OUTPUT-OF-THE-FIRST-PROGRAM")\n';
const CRASH = 'import os\nos.abort()\n';
const SPIN = 'while True:\n    pass\n';
const FLOOD = 'import sys\nsys.stdout.write("x" * (1 << 20))\n';
// Looks for the first program's source or file anywhere it can list above its own directory (the
// strings are built at run time, so its own source does not match).
const SNOOP = `import os
found = []
for top in ('.', '..', '../..', '/tmp'):
    try:
        for root, dirs, files in os.walk(top):
            for f in files:
                try:
                    data = open(os.path.join(root, f), errors='ignore').read()
                except Exception:
                    continue
                if ('MARKER-OF-' + 'THE-FIRST') in data or ('OUTPUT-OF-' + 'THE-FIRST') in data:
                    found.append(os.path.join(root, f))
    except Exception:
        pass
print('found ' + ' '.join(found) if found else 'nothing', input())
`;

async function serve(requests: RunnerRequest[], afterItem: () => Promise<IntegrityReport> = async () => clean) {
  const served = await serveInvocation({ request: { version: 1, programs: requests }, handoffs: [] }, { get: async () => suite.executor, afterItem });
  if (!('response' in served)) throw new Error(`runner failed: ${served.error.errorMessage}`);
  return { programs: (served.response as { programs: (RunnerResponse | RunnerProgramError)[] }).programs, discard: served.discard };
}

const runsOf = (answer: RunnerResponse | RunnerProgramError | undefined) => {
  if (answer === undefined || !('ok' in answer) || !answer.ok) throw new Error(`not a run answer: ${JSON.stringify(answer)}`);
  return answer.runs;
};

describe('a runner invocation carrying several programs', () => {
  it("answers each program as it answers it alone: a crash, a spin to the time limit and a flood change nothing in the others' answers", async () => {
    const alone = await serveInvocation(program(SUM), { get: async () => suite.executor, afterItem: async () => clean });
    if (!('response' in alone) || !('runs' in alone.response)) throw new Error('the program alone was not answered');
    const { programs, discard } = await serve([program(CRASH), program(SUM), program(SPIN), program(FLOOD), program(SUM)]);
    expect(discard).toBe(false);
    expect(programs).toHaveLength(5);
    expect(runsOf(programs[0]).map((r) => r.termination)).toEqual(['signaled', 'signaled']);
    expect(runsOf(programs[2]).map((r) => r.termination)).toEqual(['time', 'time']);
    expect(runsOf(programs[3]).map((r) => r.truncated)).toEqual([true, true]);
    for (const k of [1, 4]) {
      const runs = runsOf(programs[k]);
      expect(runs.map((r) => [r.termination, r.exitCode, r.stdout])).toEqual(alone.response.runs.map((r) => [r.termination, r.exitCode, r.stdout]));
      expect(runs.map((r) => r.stdout)).toEqual(['3\n', '42\n']);
    }
  }, 120_000);

  it("gives no program another's source or output: each runs in its own directory", async () => {
    const { programs } = await serve([program(SUM), program(SNOOP)]);
    expect(runsOf(programs[0]).map((r) => r.stdout)).toEqual(['3\n', '42\n']);
    expect(runsOf(programs[1]).map((r) => r.stdout)).toEqual(['nothing 1 2\n', 'nothing 40 2\n']);
  }, 120_000);

  it('runs no program after one left the environment unclean: each of the rest is an error its judge retries, and the environment ends', async () => {
    const reports: IntegrityReport[] = [clean, { clean: false, survivors: [{ pid: 1234, command: 'sleep' }], changes: [] }];
    let checks = 0;
    const { programs, discard } = await serve([program(SUM), program(SUM), program(SUM), program(SUM)], async () => reports[checks++] ?? clean);
    expect(discard).toBe(true);
    expect(checks).toBe(2);
    expect(runsOf(programs[0]).map((r) => r.stdout)).toEqual(['3\n', '42\n']);
    expect(programs[1]).toMatchObject({ ok: true, integrity: { clean: false } });
    expect(programs.slice(2)).toEqual([1, 2].map(() => ({ errorType: 'RunnerDiscarded', errorMessage: expect.stringMatching(/earlier program/) })));
  }, 120_000);
});
