/**
 * Every option with choices, in every command and subcommand, rejects a value outside them as
 * an InputError about its flag (the CLI prints `--format zzz: must be one of …`), never with
 * commander's own `option '--format <format>' argument 'zzz' is invalid.`; help keeps its choices.
 */
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { allCommands } from '../../../bin/cli/commands.ts';
import { choicesInFlagTerms } from '../../../bin/cli/options.ts';
import { InputError } from '#core/errors.ts';

function choiceOptions(command: Command, path = command.name()): [string, Option][] {
  return [
    ...command.options.filter((o) => o.argChoices).map((o): [string, Option] => [`${path} ${o.long ?? o.flags}`, o]),
    ...command.commands.flatMap((sub) => choiceOptions(sub, `${path} ${sub.name()}`)),
  ];
}

const options = allCommands().flatMap((c) => choiceOptions(choicesInFlagTerms(c)));

describe('options with choices', () => {
  it('exist (the sweep below checks something)', () => {
    expect(options.length).toBeGreaterThan(8);
  });

  it.each(options)('%s: a value outside the choices is an InputError naming the flag; a choice passes', (_name, option) => {
    const choices = option.argChoices ?? [];
    let error: unknown;
    try {
      option.parseArg?.('not-a-choice', undefined);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).location.field).toBe(option.long);
    expect((error as InputError).detail).toBe(`must be one of ${choices.join(', ')}`);
    expect(option.parseArg?.(choices[0] ?? '', undefined)).toBe(choices[0]);
    expect(option.argChoices).toEqual(choices);
  });
});
