/**
 * A run probes the toolchains of its own languages only: planning asks for them once the
 * items are known (starting `javac` or `g++ --version` for a Python run was part of every
 * run's start), and the manifest keeps exactly the languages its items use.
 */
import { describe, expect, it } from 'vitest';
import { rocode } from '#core/benchmarks/rocode.ts';
import { referenceProvider } from '#core/models/reference.ts';
import type { ToolchainInfo } from '#core/ports.ts';
import { planRun, type LoadedBenchmark } from '#core/run/plan.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import type { Task } from '#core/types.ts';

const row = {
  task_id: 'ro/1',
  statement: 'Citiți N și afișați N.',
  input_spec: 'Fișierul ecou.in conține N.',
  output_spec: 'Fișierul ecou.out conține N.',
  tests: [{ input: '1\n', output: '1\n' }],
  time_limit: 1,
  solutions: { python: 'print(input())\n', cpp: 'int main(){}\n' },
};

function loaded(): LoadedBenchmark {
  const tasks: Task[] = rocode.parseRow(row, { file: 'mem.jsonl', line: 1 });
  return { benchmark: rocode, tasks, spec: 'rocode:mem.jsonl', source: 'mem.jsonl', sha256: 'x' };
}

const base = { runId: 'r1', createdAt: '2026-12-01T00:00:00Z', code: { version: '0', revision: null, dirty: null }, packages: {} };
const info = (language: string): ToolchainInfo => ({ language, compiler: `${language}c`, version: '1', flags: [], available: true });

describe('the toolchains a run records', () => {
  it("asks the prober for the items' languages only, once, and records what it answers", async () => {
    const asked: string[][] = [];
    const plan = await planRun(loaded(), parseRunSpec({ benchmark: 'rocode:mem.jsonl', model: 'reference', language: 'python' }), referenceProvider(), {
      ...base,
      toolchains: async (languages) => {
        asked.push([...languages]);
        return [...languages].map(info);
      },
    });
    expect(asked).toEqual([['python']]);
    expect(plan.manifest.toolchains.map((t) => t.language)).toEqual(['python']);
  });

  it('keeps only the used languages from a full list (the cloud planner and dry runs pass one)', async () => {
    const plan = await planRun(loaded(), parseRunSpec({ benchmark: 'rocode:mem.jsonl', model: 'reference', language: 'cpp' }), referenceProvider(), {
      ...base,
      toolchains: ['python', 'cpp', 'java', 'kotlin'].map(info),
    });
    expect(plan.manifest.toolchains.map((t) => t.language)).toEqual(['cpp']);
  });
});
