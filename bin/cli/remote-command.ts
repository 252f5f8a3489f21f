/**
 * `polyeval remote run|status|metrics|leaderboard --api <url>`: the same against the deployed
 * HTTP API, every request SigV4-signed with the standard AWS credential chain. `remote run`
 * takes the flags of `polyeval run` and validates them with the same schema before sending.
 */
import { Command } from 'commander';
import { InputError } from '#core/errors.ts';
import type { MetricValue } from '#core/run/aggregate.ts';
import { RemoteClient } from '#app/remote-client.ts';
import { table, toJson } from './format.ts';
import { addSpecOptions, specFromFlags, type SpecFlags } from './spec-options.ts';
import { metricsTable } from './show.ts';

interface RemoteGlobals {
  api?: string;
  region?: string;
  json?: boolean;
}

type RemoteRunFlags = SpecFlags;

function clientOf(command: Command): { client: RemoteClient; json: boolean } {
  const globals = command.optsWithGlobals<RemoteGlobals>();
  const api = globals.api ?? process.env.POLYEVAL_API;
  if (!api) throw new InputError('missing --api <url> (or POLYEVAL_API): the URL `cdk deploy` printed as ApiUrl', { field: 'api' });
  return { client: new RemoteClient({ api, ...(globals.region ? { region: globals.region } : {}) }), json: globals.json ?? false };
}

function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

function runCommand(): Command {
  return addSpecOptions(new Command('run').description('start a run on the deployed pipeline (the flags of `polyeval run`)'), {
    benchmark: 'sample | sample/<suite> | <benchmark>:<s3://…|hf://…> | <benchmark>',
    model: 'reference | replay:s3://… | bedrock:<id> | sagemaker:<endpoint>#tgi|#openai | openai:<url>#<model>',
  })
    .action(async (flags: RemoteRunFlags, command: Command) => {
      const spec = specFromFlags(flags);
      const { client, json } = clientOf(command);
      const started = await client.startRun(spec);
      if (json) return print(toJson(started));
      print(table(started.runs, ['run_id', 'benchmark', 'model', 'language']));
      print(`\nfollow with: polyeval remote status ${started.run_id}`);
    });
}

function statusCommand(): Command {
  return new Command('status')
    .description('one run (status, counts, manifest), or every run without an id')
    .argument('[run-id]', 'the run')
    .action(async (runId: string | undefined, _flags: unknown, command: Command) => {
      const { client, json } = clientOf(command);
      if (runId === undefined) {
        const { runs } = await client.listRuns();
        if (json) return print(toJson({ runs }));
        return print(table(runs, ['runId', 'benchmark', 'model', 'status', 'recorded', 'items', 'costUsd', 'createdAt']));
      }
      const view = await client.getRun(runId);
      if (json) return print(toJson(view));
      const run = view.run;
      print(table([run], ['runId', 'benchmark', 'model', 'status', 'recorded', 'items', 'costUsd', 'updatedAt']));
      print(`verdicts: ${JSON.stringify(run.verdicts ?? {})}${typeof run.reason === 'string' ? `\nreason: ${run.reason}` : ''}`);
    });
}

function metricsCommand(): Command {
  return new Command('metrics')
    .description("a completed run's metrics (with 95% intervals)")
    .argument('<run-id>', 'the run')
    .action(async (runId: string, _flags: unknown, command: Command) => {
      const { client, json } = clientOf(command);
      const summary = await client.getMetrics(runId);
      if (json) return print(toJson(summary));
      print(`${String(summary.run_id)}  ${String(summary.benchmark)}  ${String(summary.model)}  items=${String(summary.items)}`);
      print(metricsTable((summary.metrics ?? {}) as Record<string, MetricValue>));
    });
}

function leaderboardCommand(): Command {
  return new Command('leaderboard')
    .description("best run per model on a benchmark's headline metric (Athena)")
    .requiredOption('-b, --benchmark <id>', 'benchmark id (rocode, kotlin-humaneval, abricot)')
    .option('--metric <metric>', 'metric instead of the headline one')
    .option('--slice <slice>', 'slice instead of `all`')
    .action(async (flags: { benchmark: string; metric?: string; slice?: string }, command: Command) => {
      const { client, json } = clientOf(command);
      const board = await client.leaderboard(flags.benchmark, { ...(flags.metric ? { metric: flags.metric } : {}), ...(flags.slice ? { slice: flags.slice } : {}) });
      if (json) return print(toJson(board));
      print(table(board.rows, ['model', 'value', 'ci_low', 'ci_high', 'n', 'runs', 'run_id']));
    });
}

export function remoteCommand(): Command {
  const remote = new Command('remote')
    .description('the same against the deployed API (SigV4-signed with your AWS credentials)')
    .option('--api <url>', 'the HTTP API URL (default: $POLYEVAL_API)')
    .option('--region <region>', 'signing region (default: AWS_REGION, else from the API host)')
    .option('--json', 'print exactly one JSON object on stdout');
  for (const sub of [runCommand(), statusCommand(), metricsCommand(), leaderboardCommand()]) remote.addCommand(sub.exitOverride());
  return remote;
}
