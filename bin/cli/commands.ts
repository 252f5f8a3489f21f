/** The CLI's commands, in the order `polyeval --help` lists them: the one list the entry point and the tests share. */
import type { Command } from 'commander';
import { agreeCommand } from './agree-command.ts';
import { gcCommand, rmCommand } from './cleanup-commands.ts';
import { doctorCommand } from './doctor-command.ts';
import { inspectCommand } from './inspect-command.ts';
import { leaderboardCommand } from './leaderboard-command.ts';
import { compareCommand, listCommand, queryCommand, reportCommand } from './query-commands.ts';
import { remoteCommand } from './remote-command.ts';
import { resumeCommand } from './resume-command.ts';
import { runCommand } from './run-command.ts';

export function allCommands(): Command[] {
  return [
    runCommand(),
    resumeCommand(),
    listCommand(),
    reportCommand(),
    compareCommand(),
    leaderboardCommand(),
    queryCommand(),
    agreeCommand(),
    rmCommand(),
    gcCommand(),
    doctorCommand(),
    inspectCommand(),
    remoteCommand(),
  ];
}
