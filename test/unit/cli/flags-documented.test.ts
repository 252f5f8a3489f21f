// Every flag a command takes is documented: docs/cli.md promises "every command and flag", and an
// audit of the CLI against it found a dozen flags that only `--help` knew. A local command's flags
// are looked for in docs/cli.md (its own section or the tables that name them, providers.md for
// provider settings); `remote`'s in docs/aws.md or docs/cli.md, where the deployed pipeline's
// commands are described.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { allCommands } from '../../../bin/cli/commands.ts';

const ROOT = join(import.meta.dirname, '../../..');
const doc = (name: string): string => readFileSync(join(ROOT, 'docs', name), 'utf8');
const LOCAL_DOCS = doc('cli.md') + doc('providers.md');
const REMOTE_DOCS = doc('aws.md') + doc('cli.md');

/**
 * `[command path, flag]` for every spelling of every flag of `command` and its subcommands
 * (`--help` aside): the short form and the long one. A one-letter form alone proves little —
 * `-c` is in every `cdk deploy -c …` of aws.md, `-o` in many a command — so the long form
 * (`--context`, `--output`) must be written too; only a long form that merely repeats the
 * letter (`-n, --n`) is not looked for.
 */
function flagsOf(command: Command, path: string[] = []): [string, string][] {
  const here = [...path, command.name()];
  const own = command.options
    .flatMap((o) => [o.short, o.long && o.long.length > 3 ? o.long : undefined])
    .filter((f): f is string => f !== undefined && f !== '--help');
  return [...own.map((f): [string, string] => [here.join(' '), f]), ...command.commands.flatMap((c) => flagsOf(c, here))];
}

const flags = allCommands().flatMap((c) => flagsOf(c));

describe('the documentation of the CLI', () => {
  it('has flags to check (every command is reached)', () => {
    expect(flags.length).toBeGreaterThan(60);
    expect(flags.some(([command]) => command.startsWith('remote '))).toBe(true);
  });

  it.each(flags)('documents %s %s', (command, flag) => {
    const docs = command === 'remote' || command.startsWith('remote ') ? REMOTE_DOCS : LOCAL_DOCS;
    // The flag as written in the docs: `--flag` or `-x`, not as the start of a longer one.
    expect(docs, `${command} ${flag} is not in the docs`).toMatch(new RegExp(`(?<![a-z-])${flag.replace(/[-]/g, '\\-')}(?![a-z-])`));
  });
});
