// The one map from schema fields to flags: an InputError about the command line names the
// flag as typed (short or long, `--x=v` or `--x v`) with its value; others pass unchanged.
import { describe, expect, it } from 'vitest';
import { InputError } from '#core/errors.ts';
import { inFlagTerms } from '../../../bin/cli/flag-names.ts';

const spec = (field: string, message = 'Too small'): InputError => new InputError(message, { file: 'command line', field });

describe('inFlagTerms', () => {
  it('names the flag and the value typed for a run-spec field', () => {
    expect(inFlagTerms(spec('maxCostUsd'), ['run', '--max-cost', '-5']).message).toBe('--max-cost -5: Too small');
    expect(inFlagTerms(spec('timeScale'), ['run', '--time-scale=0']).message).toBe('--time-scale 0: Too small');
    expect(inFlagTerms(spec('n'), ['run', '-n', '0']).message).toBe('-n 0: Too small');
    expect(inFlagTerms(spec('stop.0'), ['run', '--stop', '']).message).toBe('--stop : Too small');
  });

  it('names every spelling when the flag was not typed (a missing -b)', () => {
    expect(inFlagTerms(spec('benchmark', 'is missing'), ['run']).message).toBe('-b/--benchmark: is missing');
  });

  it('leaves a message that already names the flag as it is, without its field', () => {
    expect(inFlagTerms(new InputError('--resume takes the model from the run; do not pass -m', { field: 'model' }), ['run', '-m', 'x']).message).toBe(
      '--resume takes the model from the run; do not pass -m',
    );
  });

  it('leaves errors about files, rows and arguments alone', () => {
    const row = new InputError('is missing', { file: 'tasks.jsonl', line: 2, field: 'language' });
    expect(inFlagTerms(row, ['run', '--language', 'c'])).toBe(row);
    const argument = new InputError('no run "x"', { field: 'run' });
    expect(inFlagTerms(argument, ['report', 'x'])).toBe(argument);
  });
});
