// Builds RunRecords for metric tests: only the fields a test cares about need spelling out.
import type { RunRecord } from '#core/types.ts';

export function makeRecord(fields: Partial<RunRecord> & Pick<RunRecord, 'task_id'>): RunRecord {
  return {
    run_id: 'run-1',
    benchmark: 'bench',
    split: 'test',
    model: 'model',
    provider: 'reference',
    sample: 0,
    language: null,
    difficulty: null,
    subtask: null,
    verdict: 'OK',
    tests_passed: 0,
    tests_total: 0,
    compile_ms: null,
    run_ms: null,
    peak_memory_kb: null,
    prompt_tokens: null,
    completion_tokens: null,
    predicted: null,
    gold: null,
    gold_mean: null,
    answer: '',
    error: null,
    created_at: '2024-01-01T00:00:00.000Z',
    ...fields,
  };
}

/** A code sample: verdict and tests passed out of total. */
export function codeSample(task_id: string, verdict: RunRecord['verdict'], passed: number, total: number, extra: Partial<RunRecord> = {}): RunRecord {
  return makeRecord({ task_id, verdict, tests_passed: passed, tests_total: total, ...extra });
}

/** A likert answer: predicted (null = unparseable) against gold and its continuous mean. */
export function likertAnswer(task_id: string, subtask: string, predicted: number | null, gold: number, gold_mean: number): RunRecord {
  return makeRecord({ task_id, subtask, predicted, gold, gold_mean, verdict: predicted === gold ? 'OK' : 'WA' });
}
