/**
 * The benchmark registry holds each benchmark as a benchmark of any task without erasing its
 * type: a task of another kind is refused at the door, before the benchmark's own prompt
 * builder, reference or cleaning sees it — and so after a protocol is bound.
 */
import { describe, expect, it } from 'vitest';
import { HarnessError } from '#core/errors.ts';
import { bindProtocol } from '#core/benchmarks/protocol.ts';
import { findBenchmark } from '#core/benchmarks/registry.ts';
import { likertTask as makeLikertTask } from '../../support/tasks.ts';

const likertTask = makeLikertTask();

describe('the benchmark registry', () => {
  it("answers for a benchmark's own tasks", () => {
    const abricot = findBenchmark('abricot');
    expect(abricot?.buildPrompt(likertTask, { pool: [likertTask] })).toBeDefined();
  });

  it.each(['rocode', 'mxeval', 'kotlin-humaneval'])('refuses a likert task given to %s, naming the kinds', (id) => {
    const bench = findBenchmark(id);
    expect(bench).toBeDefined();
    if (!bench) return;
    expect(() => bench.postprocess('print(1)', likertTask)).toThrow(HarnessError);
    expect(() => bench.reference(likertTask)).toThrow(`the ${id} benchmark (${bench.scorer}) was given a likert task (abricot-1-abstractness)`);
    expect(() => bindProtocol(bench).languageOf(likertTask)).toThrow(HarnessError);
  });
});
