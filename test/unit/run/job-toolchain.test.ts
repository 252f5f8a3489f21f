// The run's toolchain settings reach the executor on each job (issue 14): a Kotlin sample of a
// run with a Kotlin language version carries it, a Python sample of the same run carries none.
// The executor here is an in-memory Executor port that records the jobs it is given.
import { describe, expect, it } from 'vitest';
import { toolchainOptionsByLanguage } from '#core/languages/index.ts';
import type { ExecutionJob, Executor } from '#core/ports.ts';
import { scoreItem, type RunContext } from '#core/run/engine.ts';
import type { UnitTestsTask } from '#core/types.ts';

const task = (id: string, language: string): UnitTestsTask => ({
  kind: 'unit-tests',
  id,
  benchmark: 'handmade',
  split: 'test',
  slices: {},
  language,
  prompt: '',
  entryPoint: 'f',
  test: '',
  canonicalSolution: '',
});

function contextRecording(jobs: ExecutionJob[], kotlinLanguageVersion: string | null): RunContext {
  const executor: Executor = {
    async execute(job) {
      jobs.push(job);
      return { verdict: 'OK', testsPassed: 1, testsTotal: 1 };
    },
    toolchains: async () => [],
    close: async () => undefined,
  };
  const tasks = new Map([
    ['kt/0', task('kt/0', 'kotlin')],
    ['py/0', task('py/0', 'python')],
  ]);
  // Only what scoring reads: the manifest's settings, the tasks and the executor.
  return { executor, tasks, manifest: { time_scale: 1, kotlin_language_version: kotlinLanguageVersion }, stop: {} } as unknown as RunContext;
}

const generated = (taskId: string) => ({ item: { runId: 'r', taskId, sample: 0 }, raw: 'x', answer: 'x', usage: null, latencyMs: null, attempts: 1 });

describe('toolchain options on execution jobs', () => {
  it('gives a Kotlin job the run language version and a Python job of the same run none', async () => {
    const jobs: ExecutionJob[] = [];
    const ctx = contextRecording(jobs, '2.0');

    await scoreItem(ctx, generated('kt/0'));
    await scoreItem(ctx, generated('py/0'));

    expect(jobs.map((j) => [j.language, j.toolchain])).toEqual([
      ['kotlin', { languageVersion: '2.0' }],
      ['python', undefined],
    ]);
  });

  it('gives no options when the run sets none', async () => {
    const jobs: ExecutionJob[] = [];

    await scoreItem(contextRecording(jobs, null), generated('kt/0'));

    expect(jobs[0]?.toolchain).toBeUndefined();
    expect(toolchainOptionsByLanguage({ kotlin_language_version: null })).toEqual({});
  });
});
