import { describe, expect, it } from 'vitest';
import { METRIC_COLUMNS, MetricRowSchema, PARTITION_COLUMNS, RECORD_COLUMNS, RunRecordSchema } from '#core/columns.ts';
import { makeRecord } from '../../support/records.ts';

// The tables' file layout is part of the stored format (DuckDB locally, Athena over the same
// Parquet files in the cloud): written out here so a change to the schema that moves, retypes
// or drops a column fails, on purpose, until this list and the stored data's readers agree.
const RECORD_FILE_LAYOUT = [
  'split:string',
  'model:string',
  'provider:string',
  'task_id:string',
  'sample:int',
  'language:string',
  'difficulty:string',
  'subtask:string',
  'verdict:string',
  'tests_passed:int',
  'tests_total:int',
  'compile_ms:double',
  'run_ms:double',
  'peak_memory_kb:double',
  'prompt_tokens:int',
  'completion_tokens:int',
  'predicted:double',
  'gold:double',
  'gold_mean:double',
  'answer:string',
  'error:string',
  'created_at:string',
];
const METRIC_FILE_LAYOUT = ['model:string', 'metric:string', 'slice:string', 'value:double', 'ci_low:double', 'ci_high:double', 'n:int', 'reason:string'];

describe('table columns, derived from the record and metric schemas', () => {
  it('keep the stored records layout: names, order and Parquet/Glue types', () => {
    expect(RECORD_COLUMNS.map((c) => `${c.name}:${c.type}`)).toEqual(RECORD_FILE_LAYOUT);
  });

  it('keep the stored metrics layout', () => {
    expect(METRIC_COLUMNS.map((c) => `${c.name}:${c.type}`)).toEqual(METRIC_FILE_LAYOUT);
  });

  it('cover every schema field, partition columns coming from the path', () => {
    expect([...PARTITION_COLUMNS, ...RECORD_COLUMNS.map((c) => c.name)].sort()).toEqual(Object.keys(RunRecordSchema.shape).sort());
    expect([...PARTITION_COLUMNS, ...METRIC_COLUMNS.map((c) => c.name)].sort()).toEqual(Object.keys(MetricRowSchema.shape).sort());
  });

  it('refuses a stored record whose verdict is not one polyeval writes', () => {
    const record = makeRecord({
      run_id: 'r',
      benchmark: 'b',
      model: 'm',
      provider: 'p',
      task_id: 't',
      tests_passed: 1,
      tests_total: 1,
      created_at: '2026-01-01T00:00:00Z',
    });
    expect(RunRecordSchema.safeParse(record).success).toBe(true);
    expect(RunRecordSchema.safeParse({ ...record, verdict: 'PASS' }).success).toBe(false);
  });
});
