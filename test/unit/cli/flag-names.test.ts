// The one map from schema fields to flags: an InputError about the command line names the
// flag as typed (short or long, `--x=v` or `--x v`) with its value; others pass unchanged.
import { describe, expect, it } from 'vitest';
import { InputError } from '#core/errors.ts';
import type { Command } from 'commander';
import { allCommands } from '../../../bin/cli/commands.ts';
import { inFlagTerms, SHORT_FORMS } from '../../../bin/cli/flag-names.ts';
import { intOption, sizeOption } from '../../../bin/cli/options.ts';

/** Every option of every command and subcommand, as commander holds them. */
function everyOption(commands: readonly Command[]): { short?: string; long?: string }[] {
  return commands.flatMap((c) => [...c.options, ...everyOption(c.commands)]);
}

const spec = (field: string, message = 'Too small'): InputError => new InputError(message, { file: 'command line', field });

describe('inFlagTerms', () => {
  it('names the flag and the value typed for a run-spec field', () => {
    expect(inFlagTerms(spec('maxCostUsd'), ['run', '--max-cost', '-5']).message).toBe('--max-cost -5: Too small');
    expect(inFlagTerms(spec('timeScale'), ['run', '--time-scale=0']).message).toBe('--time-scale 0: Too small');
    expect(inFlagTerms(spec('n'), ['run', '-n', '0']).message).toBe('-n 0: Too small');
    expect(inFlagTerms(spec('stop.0'), ['run', '--stop', '']).message).toBe('--stop : Too small');
  });

  it('names a short flag as typed, its value apart or attached (-o, -b, -n0)', () => {
    const output = new InputError('cannot write /etc/passwd/x.html: EEXIST', { field: 'output' });
    expect(inFlagTerms(output, ['leaderboard', '--format', 'html', '-o', '/etc/passwd/x.html']).message).toBe(
      '-o /etc/passwd/x.html: cannot write /etc/passwd/x.html: EEXIST',
    );
    expect(inFlagTerms(output, ['compare', 'a', 'b', '--output=/etc/passwd/x.html']).message).toBe(
      '--output /etc/passwd/x.html: cannot write /etc/passwd/x.html: EEXIST',
    );
    expect(inFlagTerms(spec('benchmark', 'unknown benchmark "nope"'), ['run', '-bnope']).message).toBe('-b nope: unknown benchmark "nope"');
    expect(inFlagTerms(spec('n'), ['run', '-n0']).message).toBe('-n 0: Too small');
  });

  it("names the flag of an option parser's refusal as typed, short or long", () => {
    const refusal = (parse: () => unknown): InputError => {
      try {
        parse();
      } catch (err) {
        return err as InputError;
      }
      throw new Error('the parser accepted the value');
    };
    expect(
      inFlagTerms(
        refusal(() => intOption('--n', 1)('0')),
        ['run', '-n', '0'],
      ).message,
    ).toBe('-n 0: must be an integer ≥ 1');
    expect(
      inFlagTerms(
        refusal(() => intOption('--n', 1)('-2')),
        ['run', '--n', '-2'],
      ).message,
    ).toBe('--n -2: must be an integer ≥ 1');
    expect(
      inFlagTerms(
        refusal(() => sizeOption('--cache-max')('lots')),
        ['gc', '--cache-max=lots'],
      ).message,
    ).toBe('--cache-max lots: must be a size like 500M or 2G');
  });

  it('knows the short form of every option that has one, in every command', () => {
    const shorts = everyOption(allCommands()).filter((o) => o.short);
    expect(shorts.length).toBeGreaterThan(0);
    for (const option of shorts) expect(SHORT_FORMS[option.long ?? ''], option.long).toBe(option.short);
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
