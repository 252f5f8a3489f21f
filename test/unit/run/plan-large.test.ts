/**
 * A dataset of more tasks than a JavaScript call takes arguments plans like a small one: the
 * planner once took the largest fixed sample count with Math.max(...tasks), which overflows the
 * stack from about 120,000 tasks (a `reference` or `replay:` run of a large dataset failed with
 * "Maximum call stack size exceeded" before any item ran).
 */
import { describe, expect, it } from 'vitest';
import { rocode } from '#core/benchmarks/rocode.ts';
import { referenceProvider } from '#core/models/reference.ts';
import { planRun, type LoadedBenchmark } from '#core/run/plan.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import type { Task } from '#core/types.ts';

const TASKS = 150_000;

function largeDataset(): LoadedBenchmark {
  const [task] = rocode.parseRow(
    {
      task_id: 'ro/0',
      statement: 'Citiți N și afișați N.',
      input_spec: 'N',
      output_spec: 'N',
      tests: [{ input: '1\n', output: '1\n' }],
      time_limit: 1,
      solutions: { python: 'print(input())\n' },
    },
    { file: 'mem.jsonl', line: 1 },
  ) as [Task];
  const tasks = Array.from({ length: TASKS }, (_, i): Task => ({ ...task, id: `ro/${i}` }));
  return { benchmark: rocode, tasks, spec: 'rocode:mem.jsonl', source: 'mem.jsonl', sha256: 'x' };
}

describe('planning a large dataset', () => {
  it(`plans ${TASKS.toLocaleString('en')} tasks with the reference model, one sample each`, async () => {
    const plan = await planRun(largeDataset(), parseRunSpec({ benchmark: 'rocode:mem.jsonl', model: 'reference', language: 'python' }), referenceProvider(), {
      runId: 'r-large',
      createdAt: '2026-12-07T00:00:00Z',
      code: { version: '0', revision: null, dirty: null },
      packages: {},
      toolchains: [],
    });
    expect(plan.manifest.n).toBe(1);
    expect(plan.items).toHaveLength(TASKS);
  }, 60_000);
});
