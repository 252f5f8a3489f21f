import { describe, expect, it } from 'vitest';
import { METRIC_COLUMNS, PARTITION_COLUMNS, RECORD_COLUMNS } from '#core/run/columns.ts';
import type { MetricRow, RunRecord } from '#core/types.ts';

// Every field of RunRecord / MetricRow, written out: tsc fails here when a field is added or
// renamed, and the test fails when the table columns do not follow.
const recordFields: Record<keyof RunRecord, true> = {
  run_id: true, benchmark: true, split: true, model: true, provider: true, task_id: true, sample: true, language: true,
  difficulty: true, subtask: true, verdict: true, tests_passed: true, tests_total: true, compile_ms: true, run_ms: true,
  peak_memory_kb: true, prompt_tokens: true, completion_tokens: true, predicted: true, gold: true, gold_mean: true,
  answer: true, error: true, created_at: true,
};
const metricFields: Record<keyof MetricRow, true> = {
  run_id: true, benchmark: true, model: true, metric: true, slice: true, value: true, ci_low: true, ci_high: true, n: true, reason: true,
};

describe('table columns', () => {
  it('cover every record field, partition columns coming from the path', () => {
    expect([...PARTITION_COLUMNS, ...RECORD_COLUMNS.map((c) => c.name)].sort()).toEqual(Object.keys(recordFields).sort());
  });

  it('cover every metric field, partition columns coming from the path', () => {
    expect([...PARTITION_COLUMNS, ...METRIC_COLUMNS.map((c) => c.name)].sort()).toEqual(Object.keys(metricFields).sort());
  });
});
