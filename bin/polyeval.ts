/**
 * The polyeval CLI. Exit codes: 0 done, 1 internal error (with its stack; a failure polyeval
 * diagnosed itself, a HarnessError, with its message only), 2 bad input
 * (the message names file, line and field), 3 a run stopped on purpose (resumable).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { packageRoot } from '#app/local/home.ts';
import { CorruptRecordError, HarnessError, InputError, RunStopped } from '#core/errors.ts';
import { awsSetupError } from './cli/aws-errors.ts';
import { allCommands } from './cli/commands.ts';
import { inFlagTerms } from './cli/flag-names.ts';
import { choicesInFlagTerms } from './cli/options.ts';

// The AWS SDK warns, from every client it constructs on Node < 22, that its future versions
// will need Node 22; this is the variable it reads to stay quiet. `polyeval doctor` reports
// the Node version's support instead, once, where a person looks for it. A user who sets the
// variable keeps their value; nothing else is silenced.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// A reader that stops early (`polyeval query … | head`) closes the pipe. What is left to print has
// nowhere to go, so it is dropped quietly, not with Node's unhandled EPIPE stack: the command
// goes on to its end and exits with its own code (0 for a query; 1 for `agree` below --min, 3
// for a stopped run: a closed pipe must not turn a failure into 0, nor cut short work that
// follows a print). A closed stderr likewise only loses the progress lines.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});
process.stderr.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

/** The version in the package.json of the installed polyeval (what `npm ci` or `npm install` put there). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

const program = new Command('polyeval')
  .description('Evaluate LLMs on RoCode (Romanian), Kotlin HumanEval and ABRICOT (Italian) — locally or on AWS')
  .version(packageVersion(), '-V, --version', 'print the version of polyeval')
  .option('--home <dir>', 'state folder (default: $POLYEVAL_HOME or ./.polyeval)')
  .showHelpAfterError()
  .exitOverride();

for (const command of allCommands()) {
  program.addCommand(choicesInFlagTerms(command).exitOverride());
}

try {
  await program.parseAsync(process.argv);
} catch (thrown) {
  // Missing or refused AWS credentials, wherever a command met them: said how to fix, no stack.
  const error = awsSetupError(thrown) ?? thrown;
  let code = 1;
  if (error instanceof CommanderError) {
    code = error.exitCode === 0 ? 0 : 2;
  } else if (error instanceof InputError) {
    process.stderr.write(`polyeval: ${inFlagTerms(error, process.argv.slice(2)).message}\n`);
    code = 2;
  } else if (error instanceof RunStopped) {
    process.stderr.write(`polyeval: ${error.message}\n`);
    code = 3;
  } else if (error instanceof CorruptRecordError) {
    // A damaged file of the store: named, left as it is, no stack (it is not polyeval's bug).
    process.stderr.write(`polyeval: ${error.message}\n  (nothing was changed: repair or remove that file; \`polyeval rm <run-id>\` deletes a whole run)\n`);
  } else if (error instanceof HarnessError) {
    // A failure polyeval diagnosed itself (an unreachable API, a toolchain that cannot start):
    // its message says what; a stack would only hide it. POLYEVAL_DEBUG=1 prints the stack.
    // The stack of what it was diagnosed from (an AWS SDK error mapped by aws-errors.ts) too.
    const cause = error.cause instanceof Error ? `\ncaused by: ${error.cause.stack ?? String(error.cause)}` : '';
    process.stderr.write(`polyeval: ${process.env.POLYEVAL_DEBUG ? `${error.stack ?? error.message}${cause}` : error.message}\n`);
  } else {
    process.stderr.write(`polyeval: internal error: ${(error as Error).stack ?? String(error)}\n`);
  }
  process.exit(code);
}
