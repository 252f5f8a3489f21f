/**
 * Errors in the words the user typed. Validation speaks in schema fields (`maxCostUsd`,
 * `timeScale`: the run spec the CLI and the HTTP API share); on the command line the same
 * value came from a flag, so an error about it names that flag and the value given
 * (`--max-cost -5: …`), not the field. This is the one place that maps fields to flags.
 */
import { InputError } from '#core/errors.ts';
import { RUN_OPTIONS } from '#core/run/index.ts';
import { spellingsOf, type RunOptions } from '#core/run/index.ts';

/**
 * Every long flag that has a short form, across all commands (a unit test walks the commands'
 * options and keeps this in step with them), so an error names `-o` when the user typed `-o`.
 */
export const SHORT_FORMS: Readonly<Record<string, string>> = {
  '--benchmark': '-b',
  '--model': '-m',
  '--n': '-n',
  '--output': '-o',
  '--file': '-f',
  '--quiet': '-q',
  // `remote doctor -c key=value`, as `cdk deploy -c` takes it.
  '--context': '-c',
};

/** Run-spec field → the flag spellings that set it (short form first), from the option declarations. */
const SPEC_FIELD_FLAGS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(RUN_OPTIONS as RunOptions).flatMap(([field, option]) => (option.cli ? [[field, spellingsOf(option)]] : [])),
);

/**
 * The flag spellings a field can stand for: a run-spec field, a field named after its flag
 * (`max-cost`, `output`) or the long flag itself (`--jobs`, as the option parsers say it).
 */
function fieldSpellings(field: string): readonly string[] | undefined {
  const base = field.split('.')[0] ?? field;
  if (SPEC_FIELD_FLAGS[base]) return SPEC_FIELD_FLAGS[base];
  const long = /^(--)?[a-z][a-z-]*$/.test(base) ? (base.startsWith('--') ? base : `--${base}`) : undefined;
  if (!long) return undefined;
  const short = SHORT_FORMS[long];
  return short ? [short, long] : [long];
}

/** The flag as typed in `argv` and the value given with it, if it was typed at all. */
function typed(spellings: readonly string[], argv: readonly string[]): { flag: string; value?: string } | undefined {
  for (let i = argv.length - 1; i >= 0; i--) {
    const arg = argv[i] as string;
    for (const flag of spellings) {
      if (arg === flag) {
        const next = argv[i + 1];
        return next !== undefined && !/^--?[a-z]/.test(next) ? { flag, value: next } : { flag };
      }
      if (arg.startsWith(`${flag}=`)) return { flag, value: arg.slice(flag.length + 1) };
      // A short flag with its value attached, as commander accepts it: `-bnope`, `-n0`.
      if (!flag.startsWith('--') && arg.startsWith(flag) && !arg.startsWith('--')) return { flag, value: arg.slice(flag.length) };
    }
  }
  return undefined;
}

/**
 * The error as the command line should say it: an InputError about a field of the command
 * line (no file, or the run spec's `command line` origin) becomes `<flag> <value>: <what>`;
 * anything else is returned as it is.
 * @example
 * inFlagTerms(new InputError('Too small: expected number to be >=0', { file: 'command line', field: 'maxCostUsd' }), ['--max-cost', '-5']).message;
 * // '--max-cost -5: Too small: expected number to be >=0'
 */
export function inFlagTerms(error: InputError, argv: readonly string[]): InputError {
  const { file, line, field } = error.location;
  if (!field || line !== undefined || (file !== undefined && file !== 'command line')) return error;
  const spellings = fieldSpellings(field);
  if (!spellings) return error;
  const given = typed(spellings, argv);
  if (!given && !SPEC_FIELD_FLAGS[field.split('.')[0] ?? field]) return error;
  const name = given ? `${given.flag}${given.value !== undefined ? ` ${given.value}` : ''}` : spellings.join('/');
  const named = spellings.some((s) => new RegExp(`(^|[\\s(/])${s}(?=[\\s,:;)/=]|$)`).test(error.detail));
  const detail = named ? error.detail : `${name}: ${error.detail}`;
  return new InputError(detail, {}, { cause: error });
}
