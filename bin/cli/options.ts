/**
 * Option parsers that reject bad numbers as an InputError about the flag: the CLI's top-level
 * catch names the flag as the user typed it (`-n 0: …`, `--jobs=x: …`, see flag-names.ts)
 * where commander's own message would list every spelling (`option '-n, --n <count>'`).
 */
import type { Command } from 'commander';
import { InputError } from '#core/errors.ts';

function invalid(flag: string, reason: string): InputError {
  return new InputError(reason, { field: flag });
}

export function intOption(flag: string, min: number, max?: number) {
  return (value: string): number => {
    const n = Number(value);
    if (max !== undefined && (!Number.isInteger(n) || n < min || n > max)) throw invalid(flag, `must be an integer from ${min} to ${max}`);
    if (!Number.isInteger(n) || n < min) throw invalid(flag, `must be an integer ≥ ${min}`);
    return n;
  };
}

export function numberOption(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n)) throw invalid(flag, 'must be a number');
    return n;
  };
}

const UNITS: Readonly<Record<string, number>> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** A size: bytes, or with a binary unit `K`, `M`, `G`, `T` (`500M`, `1.5G`, `2GB`). */
export function sizeOption(flag: string) {
  return (value: string): number => {
    const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i.exec(value.trim());
    if (!m) throw invalid(flag, 'must be a size like 500M or 2G');
    return Math.floor(Number(m[1]) * (UNITS[(m[2] ?? '').toLowerCase()] ?? 1));
  };
}

/** `1.5 GB`, `340 MB`, `12 KB`, `80 B` (binary units). */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ['TB', 1024 ** 4],
    ['GB', 1024 ** 3],
    ['MB', 1024 ** 2],
    ['KB', 1024],
  ] as const) {
    if (bytes >= size) return `${(bytes / size).toFixed(1)} ${unit}`;
  }
  return `${bytes} B`;
}

/**
 * Every option and argument with choices, in `command` and its subcommands, rejects a value
 * outside them as an InputError about its flag (`--format zzz: must be one of table, json`),
 * as the number parsers above do, instead of commander's own message. Help still lists the
 * choices (`argChoices` stays).
 */
export function choicesInFlagTerms(command: Command): Command {
  for (const option of command.options) {
    const choices = option.argChoices;
    const flag = option.long ?? option.short ?? option.flags;
    if (!choices) continue;
    option.argParser((value: string, previous: unknown) => {
      if (!choices.includes(value)) throw invalid(flag, `must be one of ${choices.join(', ')}`);
      // As commander's own choices parser: a variadic option collects its values.
      if (!option.variadic) return value;
      return previous === option.defaultValue || !Array.isArray(previous) ? [value] : [...(previous as string[]), value];
    });
  }
  for (const argument of command.registeredArguments) {
    const choices = argument.argChoices;
    if (!choices) continue;
    argument.argParser((value: string) => {
      if (!choices.includes(value)) throw new InputError(`${command.name()} ${value}: <${argument.name()}> must be one of ${choices.join(', ')}`);
      return value;
    });
  }
  for (const sub of command.commands) choicesInFlagTerms(sub);
  return command;
}
