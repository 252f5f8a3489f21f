/**
 * `polyeval resume <run-id|sweep-id>`: the same as `polyeval run --resume <id>` (the command
 * README and docs/aws.md name beside `polyeval remote resume`). It is `polyeval run` itself
 * under another name, its operand taken as `--resume`, so both spellings share one code path
 * and one set of rules (run-rules.ts); its help lists only the flags a resume may change.
 */
import type { Command } from 'commander';
import { runCommand } from './run-command.ts';

/** The flags `polyeval resume --help` lists: those a resume may change (docs/cli.md, "What a `--resume` may change"). */
const RESUME_FLAGS: ReadonlySet<string> = new Set([
  '--max-cost',
  '--no-early-stop',
  '--region',
  '--endpoint-url',
  '--api-key-env',
  '--timeout',
  '--capabilities',
  '--prices',
  '--concurrency',
  '--model-concurrency',
  '--jobs',
  '--trust-generated-code',
  '--batch-poll',
  '--batch-token-limit',
  '--json',
  '--quiet',
]);

export function resumeCommand(): Command {
  const command = runCommand()
    .name('resume')
    .description('continue a killed or stopped run or sweep <run-id|sweep-id>: only its missing and SE items run (the same as run --resume <id>)')
    .usage('<run-id|sweep-id> [options]')
    .allowExcessArguments(true)
    .hook('preAction', (cmd) => {
      const [id, ...extra] = cmd.args;
      if (id === undefined)
        cmd.error("error: missing required argument 'run-id|sweep-id' (see: polyeval list runs)", { exitCode: 2, code: 'commander.missingArgument' });
      if (extra.length > 0)
        cmd.error(`error: too many arguments for 'resume': expected one run or sweep id, got ${cmd.args.join(' ')}`, {
          exitCode: 2,
          code: 'commander.excessArguments',
        });
      if (cmd.getOptionValue('resume') !== undefined)
        cmd.error('error: give the run or sweep id once: `polyeval resume <id>` (or `polyeval run --resume <id>`)', { exitCode: 2 });
      cmd.setOptionValue('resume', id);
    });
  for (const option of command.options) if (!RESUME_FLAGS.has(option.long ?? '')) option.hideHelp();
  return command;
}
