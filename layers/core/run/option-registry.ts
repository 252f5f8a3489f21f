/**
 * The machinery of "an option is declared once": a run option is one value naming its schema,
 * its command-line spelling, its help, its group and the rules it takes part in. The run spec's
 * zod schema, its validator (used by the CLI, the HTTP API and sweeps alike) and the names a
 * sweep file may use are derived here from a registry of such declarations; the CLI derives its
 * commander options from the same registry (bin/cli/spec-options.ts).
 */
import { z } from 'zod';
import { InputError } from '../errors.ts';

/** Where an option is listed in `--help` (and docs/cli.md), in this order. */
export const OPTION_GROUPS = {
  target: 'What to run',
  selection: 'Task selection',
  sampling: 'Sampling',
  protocol: 'Protocol',
  pricing: 'Cost and pricing',
  execution: 'Execution',
  batch: 'Batch',
  providers: 'Providers',
  output: 'Run control and output',
} as const;
export type OptionGroup = keyof typeof OPTION_GROUPS;

/** The heading `--help` prints above a group. */
export function groupHeading(group: OptionGroup): string {
  return `${OPTION_GROUPS[group]}:`;
}

/** How the command line turns the text after a flag into the option's value. */
export type CliParse =
  | { kind: 'int'; min: number }
  | { kind: 'number' }
  /** Given several times (`-m a -m b`), collected in order. */
  | { kind: 'repeatable' }
  | { kind: 'choices'; choices: readonly string[] };

export interface CliSpelling {
  /** As commander takes it: `-n, --n <count>`, `--no-early-stop`, `--stop <sequence...>`. */
  flags: string;
  parse?: CliParse;
  /**
   * false: each command declares the flag itself (its text or meaning differs: `--prices` is a
   * path locally and the file's prices in a remote request); the spelling still names the field in errors.
   */
  shared?: false;
  /** The spec value of the parsed flag (default: as parsed; `undefined` sends nothing). */
  toSpec?: (value: unknown) => unknown;
}

export interface RunOption<S extends z.ZodType = z.ZodType> {
  /** The spec field's schema: the HTTP API, sweeps and the CLI validate with it. */
  schema: S;
  group: OptionGroup;
  /** `--help` text; a function when the command supplies the usage (`-b`, `-m`). */
  help: string | ((usage: string) => string);
  cli?: CliSpelling;
  /** Other names a sweep file's `params` may use for it (the CLI's JSON spelling: `top_p`). */
  aliases?: readonly string[];
  /** "Only for benchmark B": the option applies where the run's protocol has this setting. */
  appliesTo?: { protocolSetting: string };
}

export type RunOptions = Readonly<Record<string, RunOption>>;

/** A rule between options: the refusal (what is wrong, naming the flags), or undefined. */
export interface OptionRule<V> {
  /** A stable name (tests and docs list rules by it). */
  id: string;
  /** The field an error names (a spec field or a flag's name). */
  field: string;
  check(values: V): string | undefined;
}

/** Declares one option (keeps its schema's type for the derived spec type). */
export function runOption<S extends z.ZodType>(option: RunOption<S>): RunOption<S> {
  return option;
}

/** The zod object of a registry's options: unknown fields are refused. */
export function specSchemaOf<O extends Readonly<Record<string, RunOption>>>(options: O): z.ZodObject<{ [K in keyof O]: O[K]['schema'] }, z.core.$strict> {
  const shape = Object.fromEntries(Object.entries(options).map(([key, option]) => [key, option.schema])) as { [K in keyof O]: O[K]['schema'] };
  return z.strictObject(shape);
}

/** The first rule that refuses `values`, as an InputError naming its field. */
export function checkRules<V>(rules: readonly OptionRule<V>[], values: V, origin?: string): void {
  for (const rule of rules) {
    const refusal = rule.check(values);
    if (refusal !== undefined) throw new InputError(refusal, { ...(origin !== undefined ? { file: origin } : {}), field: rule.field });
  }
}

/** A validator: the registry's schema, then its rules; throws InputError naming the first bad field. */
export function specParserOf<O extends Readonly<Record<string, RunOption>>>(
  options: O,
  rules: readonly OptionRule<z.output<ReturnType<typeof specSchemaOf<O>>>>[],
): (input: unknown, origin?: string) => z.output<ReturnType<typeof specSchemaOf<O>>> {
  const schema = specSchemaOf(options);
  return (input, origin = 'run request') => {
    const result = schema.safeParse(input);
    if (!result.success) {
      const issue = result.error.issues[0];
      const field = issue?.path.join('.') || undefined;
      throw new InputError(issue?.message ?? 'is invalid', { file: origin, ...(field ? { field } : {}) });
    }
    checkRules(rules, result.data, origin);
    return result.data;
  };
}

/** The long flag of an option (`--max-cost`, `--no-early-stop`), if it has one. */
export function longFlagOf(option: RunOption): string | undefined {
  return /--[a-z][a-z0-9-]*/.exec(option.cli?.flags ?? '')?.[0];
}

/** Every spelling of an option's flag, short form first (`-n`, `--n`). */
export function spellingsOf(option: RunOption): string[] {
  return [...(option.cli?.flags ?? '').matchAll(/(?:^|[\s,])(--?[a-zA-Z][a-z0-9-]*)/g)].map((m) => m[1] as string);
}

/** Sweep-file name → spec field: every declared alias. */
export function aliasesOf(options: RunOptions): Record<string, string> {
  return Object.fromEntries(Object.entries(options).flatMap(([key, option]) => (option.aliases ?? []).map((alias) => [alias, key])));
}
