/**
 * The run-spec flags shared by `polyeval run` and `polyeval remote run`, derived from the option
 * declarations (layers/core/run/run-options.ts), and their translation into the one RunSpec
 * validator the CLI, the HTTP API and sweeps share.
 */
import { type Command, Option } from 'commander';
import { InputError } from '#core/errors.ts';
import { parseRunSpec, type RunSpec } from '#core/run/index.ts';
import { RUN_OPTIONS } from '#core/run/index.ts';
import { groupHeading, longFlagOf, OPTION_GROUPS, type RunOption, type RunOptions } from '#core/run/index.ts';
import { reference } from '#core/models/index.ts';
import { intOption, numberOption } from './options.ts';

/** The parsed spec flags: every `-b` and `-m` given, in order, and each other declared flag under its commander name. */
export interface SpecFlags {
  /** Every `-b` given, in order (several: a sweep, `polyeval run` only). */
  benchmark?: string[];
  /** Every `-m` given, in order (none: `reference`). */
  model?: string[];
  [flag: string]: unknown;
}

/** The commander option of a declaration (its parser, choices and help group). */
export function cliOption(option: RunOption, usage = ''): Option {
  const cli = option.cli;
  if (!cli) throw new Error('an option without a command-line spelling has no CLI option');
  const flag = longFlagOf(option) ?? cli.flags;
  const made = new Option(cli.flags, typeof option.help === 'function' ? option.help(usage) : option.help).helpGroup(groupHeading(option.group));
  const parse = cli.parse;
  if (parse?.kind === 'int') made.argParser(intOption(flag, parse.min));
  else if (parse?.kind === 'number') made.argParser(numberOption(flag));
  else if (parse?.kind === 'repeatable') made.argParser(repeatable);
  else if (parse?.kind === 'choices') made.choices([...parse.choices]);
  return made;
}

/** Adds every shared flag of `options` to `command`; `usage` gives the command's text for `-b` and `-m`. */
export function addSpecOptions(command: Command, usage: { benchmark: string; model: string }, options: RunOptions = RUN_OPTIONS): Command {
  // Grouped in OPTION_GROUPS order (a stable sort keeps the declaration order within a group).
  const order = Object.keys(OPTION_GROUPS);
  const listed = Object.entries(options).sort(([, a], [, b]) => order.indexOf(a.group) - order.indexOf(b.group));
  for (const [key, option] of listed) {
    if (!option.cli || option.cli.shared === false) continue;
    command.addOption(cliOption(option, (usage as Record<string, string>)[key] ?? ''));
  }
  return command;
}

/** Collects a flag given several times (`-m a -m b`) into an array. */
function repeatable(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** True when the flags name several benchmarks or several models: a grid of runs. */
export function isSweep(flags: Pick<SpecFlags, 'benchmark' | 'model'>): boolean {
  return (flags.benchmark?.length ?? 0) > 1 || (flags.model?.length ?? 0) > 1;
}

/** Validates the flags with the shared schema; a bad value is an InputError naming the field. */
export function specFromFlags(flags: SpecFlags): RunSpec {
  if (isSweep(flags)) throw new InputError('several -b/-m make a sweep, which only `polyeval run` runs; give one of each here', { field: 'benchmark' });
  return gridFromFlags(flags)[0] as RunSpec;
}

/** The spec fields the flags give (benchmark and model aside), as the declarations map them. */
export function specFieldsOf(flags: SpecFlags, options: RunOptions = RUN_OPTIONS): Record<string, unknown> {
  const given: Record<string, unknown> = {};
  for (const [key, option] of Object.entries(options)) {
    if (!option.cli || option.cli.shared === false || key === 'benchmark' || key === 'model') continue;
    const raw = flags[new Option(option.cli.flags).attributeName()];
    const value = option.cli.toSpec ? option.cli.toSpec(raw) : raw;
    if (value !== undefined) given[key] = value;
  }
  return given;
}

/**
 * One validated spec per benchmark × model (benchmark-major, in the order given).
 * `parse` is the validator (the run spec's, or a test registry's).
 */
export function gridFromFlags<S = RunSpec>(
  flags: SpecFlags,
  options: RunOptions = RUN_OPTIONS,
  parse: (input: unknown, origin: string) => S = parseRunSpec as (input: unknown, origin: string) => S,
): S[] {
  if (!flags.benchmark?.length) throw new InputError('missing -b/--benchmark (try: -b sample)', { field: 'benchmark' });
  const given = specFieldsOf(flags, options);
  const models = flags.model?.length ? flags.model : [reference.scheme];
  return flags.benchmark.flatMap((benchmark) => models.map((model) => parse({ benchmark, model, ...given }, 'command line')));
}
