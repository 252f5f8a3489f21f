/**
 * `polyeval remote run|status|metrics|report|cancel|redrive|resume|leaderboard|selftest|doctor --api <url>`: the same against the deployed
 * HTTP API, every request SigV4-signed with the standard AWS credential chain. `remote run`
 * takes the flags of `polyeval run` and validates them with the same schema before sending.
 */
import { Command, Option } from 'commander';
import { parseRunSpec, type RunSpec } from '#core/run/index.ts';
import { loadUserPrices, parseAssumedPrice } from '#providers/index.ts';
import { BENCHMARKS, findBenchmark } from '#core/benchmarks/index.ts';
import { scorerByKind } from '#core/scorers/index.ts';
import { DEFAULT_DEPLOYMENT, estimateCloudRun, executorTiming, type CloudEstimate, type Deployment, type ModeEstimate } from '#app/cloud/estimate.ts';
import { dryRun } from '#app/shared/dry-run.ts';
import { generateMapping } from '#app/cloud/generate-mapping.ts';
import { MAPPING_MAX_CONCURRENCY, MAPPING_MIN_CONCURRENCY } from '#app/cloud/concurrency-budget.ts';
import { providerUsages } from '#app/shared/create-provider.ts';
import { openHome, packageRoot } from '#app/local/home.ts';
import { intOption, numberOption } from './options.ts';
import { InputError } from '#core/errors.ts';
import type { MetricValue } from '#core/report/index.ts';
import { RemoteClient, type RemoteLeaderboardOptions } from '#app/cloud/remote-client.ts';
import { table, toJson } from './format.ts';
import { leaderboardTable, type TableRow } from './leaderboard-command.ts';
import { addSpecOptions, specFromFlags, type SpecFlags } from './spec-options.ts';
import { metricsTable } from './show.ts';
import { resolve } from 'node:path';
import { checkRunId } from '#app/cloud/queries.ts';
import { downloadTo } from '#app/cloud/download.ts';
import { CLOUD_BATCH_SCHEMES, checkCloudBatch } from '#app/cloud/batch-clients.ts';
import { openFile } from './open-file.ts';
import { selftestCommand } from './selftest-command.ts';
import { remoteDoctorCommand } from './remote-doctor-command.ts';

interface RemoteGlobals {
  api?: string;
  region?: string;
  json?: boolean;
}

interface RemoteRunFlags extends SpecFlags {
  dryRun?: boolean;
  generateConcurrency?: number;
  executorConcurrency?: number;
  callSeconds?: number;
  architecture?: 'arm64' | 'x86_64';
  fargateLane?: boolean;
  prices?: string;
  assumePrice?: string;
  batch?: boolean;
}

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
    model: providerUsages(true),
  })
    .option('--prices <file.json>', "price table overriding the shipped one (its models' prices are sent with the request)")
    .option('--assume-price <input,output>', 'USD per million input,output tokens for a model the price table lacks (recorded in the manifest)')
    .option(
      '--batch',
      `generate through the provider's batch API at its batch price (${CLOUD_BATCH_SCHEMES.map((s) => `${s}:`).join(', ')}); the deployed batch stage creates and polls the jobs`,
    )
    .option('--dry-run', 'print items, tokens, model, executor and request costs and the expected wall time; start nothing')
    .option(
      '--generate-concurrency <n>',
      'dry run: deployed generate concurrency (cdk context generateMaxConcurrency, 2 to 1000 as deploy takes it)',
      // The range deploy takes (infra/config.ts): a mapping's MaximumConcurrency, 2 to 1,000.
      intOption('--generate-concurrency', MAPPING_MIN_CONCURRENCY, MAPPING_MAX_CONCURRENCY),
      DEFAULT_DEPLOYMENT.generateConcurrency,
    )
    .option(
      '--executor-concurrency <n>',
      'dry run: executor invocations at once',
      intOption('--executor-concurrency', 1),
      DEFAULT_DEPLOYMENT.executorConcurrency,
    )
    .option('--call-seconds <s>', 'dry run: seconds per model call', numberOption('--call-seconds'), DEFAULT_DEPLOYMENT.callSeconds)
    .addOption(new Option('--architecture <arch>', 'dry run: deployed architecture').choices(['arm64', 'x86_64']).default(DEFAULT_DEPLOYMENT.architecture))
    .option('--fargate-lane', 'dry run: the stack was deployed with -c fargateLane=true (its five interface endpoints bill by the hour)')
    .option('--no-fargate-lane', 'dry run: the stack was deployed without the Fargate lane (the default)')
    .action(async (flags: RemoteRunFlags, command: Command) => {
      const spec = await withPrices(specFromFlags(flags), flags);
      if (flags.batch) {
        checkCloudBatch(spec.model);
        spec.batch = true;
      }
      if (flags.dryRun) return dryRunRemote(spec, flags, command);
      const { client, json } = clientOf(command);
      const started = await client.startRun(spec);
      if (json) return print(toJson(started));
      print(table(started.runs, ['run_id', 'benchmark', 'model', 'language']));
      print(`\nfollow with: polyeval remote status ${started.run_id}`);
    });
}

/**
 * The spec with the run's prices: `--assume-price` as given, `--prices` as the file's model
 * entries (validated here; the deployed plan merges them over its shipped table).
 */
async function withPrices(spec: RunSpec, flags: RemoteRunFlags): Promise<RunSpec> {
  const assumed = flags.assumePrice === undefined ? undefined : parseAssumedPrice(flags.assumePrice);
  const user = flags.prices === undefined ? undefined : await loadUserPrices(flags.prices);
  // On-demand and batch prices of each model, and the file's premiums, as the run schema takes them.
  const models =
    user?.models &&
    Object.fromEntries(
      Object.entries(user.models).map(([id, p]) => [
        id,
        {
          input_per_mtok: p.input_per_mtok,
          output_per_mtok: p.output_per_mtok,
          batch_input_per_mtok: p.batch_input_per_mtok,
          batch_output_per_mtok: p.batch_output_per_mtok,
          source: p.source,
        },
      ]),
    );
  return parseRunSpec(
    JSON.parse(
      JSON.stringify({
        ...spec,
        ...(assumed ? { assumePrice: { input_per_mtok: assumed.input_per_mtok, output_per_mtok: assumed.output_per_mtok } } : {}),
        ...(user && (models || user.premiums) ? { prices: { models: models ?? {}, ...(user.premiums ? { premiums: user.premiums } : {}) } } : {}),
      }),
    ),
    'command line',
  );
}

/** `remote run --dry-run`: the local plan (items, tokens, model cost) plus the cloud's compute, requests and wall time. */
async function dryRunRemote(spec: RunSpec, flags: RemoteRunFlags, command: Command): Promise<void> {
  const globals = command.optsWithGlobals<RemoteGlobals & { home?: string }>();
  // Earlier runs are read when the API is known; without it the bundled suite's timings are used.
  const api = globals.api ?? process.env.POLYEVAL_API;
  const client = api ? clientOf(command).client : undefined;
  const plans = await dryRun(spec, {
    home: openHome(globals.home),
    packageRoot: packageRoot(),
    ...(flags.prices ? { pricesPath: flags.prices } : {}),
    ...(flags.assumePrice ? { assumePrice: parseAssumedPrice(flags.assumePrice) } : {}),
  });
  const deployment: Deployment = {
    architecture: flags.architecture ?? DEFAULT_DEPLOYMENT.architecture,
    generateConcurrency: flags.generateConcurrency ?? DEFAULT_DEPLOYMENT.generateConcurrency,
    executorConcurrency: flags.executorConcurrency ?? DEFAULT_DEPLOYMENT.executorConcurrency,
    callSeconds: flags.callSeconds ?? DEFAULT_DEPLOYMENT.callSeconds,
    fargateLane: flags.fargateLane ?? DEFAULT_DEPLOYMENT.fargateLane,
  };
  const languages = spec.language ? spec.language.split(',').map((l) => l.trim()) : [];
  const estimates: CloudEstimate[] = [];
  for (const plan of plans) {
    // The language a sample is executed in: none when no executor scores it (likert), else the flag's, else the benchmark's default.
    const benchmark = findBenchmark(plan.benchmark);
    const language = benchmark === undefined || !scorerByKind(benchmark.scorer).needsExecutor ? null : (languages[0] ?? benchmark.defaults.language ?? null);
    estimates.push(estimateCloudRun(plan, language, await executorTiming(client, plan.benchmark, language), deployment, spec.batch === true));
  }
  if (globals.json) return print(toJson(estimates.length === 1 ? estimates[0] : { plans: estimates }));
  for (const e of estimates) {
    const model =
      e.cost_usd === null
        ? `model cost unknown (${e.cost_reason ?? ''})`
        : `model ≈ $${e.cost_usd.toFixed(4)} on demand${batchModelCost(e, flags.batch ?? false)}`;
    print(
      `${e.benchmark}${e.language ? ` (${e.language})` : ''}: ${e.items} items · ~${e.prompt_tokens} prompt + ≤${e.completion_tokens} completion tokens · ${model}`,
    );
    const executor = e.executor.lane === 'none' ? 'no executor' : `${e.executor.lane}: ${e.executor.ms_per_item} ms/item (${e.executor.timing_source})`;
    print(
      `  executors: ${executor} · ${e.executor.lambda_gb_seconds} Lambda GB-s · ${e.executor.fargate_vcpu_hours} Fargate vCPU-h · $${e.executor.cost_usd.toFixed(6)}`,
    );
    print(
      `  requests: ${e.requests.lambda} Lambda, ${e.requests.sqs} SQS, ${e.requests.dynamodb_units} DynamoDB units, ${e.requests.s3} S3 · $${e.requests.cost_usd.toFixed(6)}`,
    );
    print(`  ${modesLine(e, deployment)}`);
    print(
      `  fixed: ${e.fixed.interface_endpoints} interface endpoints × ${e.fixed.azs} AZs + ${e.fixed.alarm_metrics} alarm metrics + ${e.fixed.scheduled_ticks} scheduled ticks (watchdog keeping ${e.fixed.watched_queues} queues' alarms, batch stage) ≈ $${e.fixed.usd_per_month.toFixed(2)}/month while the stack is deployed, runs or not`,
    );
  }
}

/** The batch price beside the on-demand one (always shown; `--batch` says which one the run pays). */
function batchModelCost(e: CloudEstimate, batch: boolean): string {
  if (e.batch_cost_usd === undefined) return '';
  if (e.batch_cost_usd === null) return ' · batch price unknown (no batch price in the price table: a batch run is billed at the on-demand price)';
  const total = e.modes.batch?.total_usd == null ? '' : `, total ≈ $${e.modes.batch.total_usd.toFixed(4)}`;
  return ` · ≈ $${e.batch_cost_usd.toFixed(4)} as a batch${total}${batch ? ' (this run: batch)' : ''}`;
}

/** Each mode's total and wall time, this run's first. */
function modesLine(e: CloudEstimate, deployment: Deployment): string {
  const usd = (m: ModeEstimate): string => (m.total_usd === null ? 'unknown (model price unknown)' : `≈ $${m.total_usd.toFixed(4)}`);
  // generate as infra/pipeline.ts deploys it for this setting: its invocations at once × each one's batch (generate-mapping.ts).
  const generate = generateMapping(deployment.generateConcurrency);
  const onDemand = `on demand: total ${usd(e.modes.on_demand)} · wall time ≈ ${Math.ceil(e.modes.on_demand.wall_time_seconds / 60)} min at ${generate.maxConcurrency} generate × ${generate.batchSize} (generateMaxConcurrency ${deployment.generateConcurrency}), ${deployment.executorConcurrency} executors`;
  const batch = e.modes.batch
    ? `as a batch: total ${usd(e.modes.batch)} · wall time ≤ ${e.modes.batch.wall_time_seconds / 3600} h (the provider's batch window; most jobs end sooner)`
    : 'as a batch: no batch API for this provider';
  return e.generation === 'batch' ? `this run, ${batch} | ${onDemand}` : `this run, ${onDemand} | ${batch}`;
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
      if (view.manifest) print(toolchainLines(view.manifest));
    });
}

/** The toolchains the run's judges recorded (the API merges them into the manifest), one line each. */
function toolchainLines(manifest: Record<string, unknown>): string {
  const toolchains = Array.isArray(manifest.toolchains) ? (manifest.toolchains as Record<string, unknown>[]) : [];
  if (toolchains.length === 0)
    return 'toolchains: none recorded (each language is recorded when its executor judges its first item of the run; a run without code has none)';
  return toolchains
    .map((t) => {
      const flags = Array.isArray(t.flags) ? (t.flags as unknown[]).map(String).join(' ') : '';
      const what =
        t.available === false
          ? `unavailable${typeof t.detail === 'string' ? `: ${t.detail}` : ''}`
          : [t.compiler, t.version, flags].filter((x) => typeof x === 'string' && x !== '').join(' ');
      return `toolchain ${String(t.language)}: ${what}`;
    })
    .join('\n');
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
      for (const warning of (summary.warnings ?? []) as string[]) print(`warning: ${warning}`);
    });
}

function reportCommand(): Command {
  return new Command('report')
    .description("download a run's HTML report (through a short-lived S3 link: a report may be larger than the API can answer)")
    .argument('<run-id>', 'the run')
    .option('-o, --output <file.html>', 'where to write it (default: ./<run-id>.html)')
    .option('--open', "open it with the platform's opener (xdg-open, open, start)")
    .action(async (runId: string, flags: { output?: string; open?: boolean }, command: Command) => {
      checkRunId(runId);
      const { client, json } = clientOf(command);
      const file = resolve(flags.output ?? `${runId}.html`);
      const link = await client.reportLink(runId);
      const bytes = await downloadTo(link.url, file);
      const problem = flags.open ? await openFile(file) : undefined;
      // The opener's trouble is not the command's: the report is there, and the message says where.
      if (problem) process.stderr.write(`polyeval: ${problem}\n`);
      if (json) return print(toJson({ run_id: runId, file, bytes, ...(flags.open ? { opened: problem === undefined } : {}) }));
      print(file);
    });
}

function cancelCommand(): Command {
  return new Command('cancel')
    .description('cancel a run: status cancelled, its queued work is skipped')
    .argument('<run-id>', 'the run')
    .action(async (runId: string, _flags: unknown, command: Command) => {
      const { client, json } = clientOf(command);
      const { run } = await client.cancelRun(runId);
      if (json) return print(toJson({ run }));
      print(`${runId}: ${String(run.status)} (${String(run.recorded)} of ${String(run.items)} items recorded)`);
    });
}

function redriveCommand(): Command {
  return new Command('redrive')
    .description("move a run's dead-lettered messages back to their queues (the run is aggregated again once they are recorded)")
    .argument('<run-id>', 'the run')
    .action(async (runId: string, _flags: unknown, command: Command) => {
      const { client, json } = clientOf(command);
      const result = await client.redriveRun(runId);
      if (json) return print(toJson(result));
      const where = Object.entries(result.queues)
        .map(([queue, n]) => `${queue}: ${n}`)
        .join(', ');
      print(`${runId}: ${result.moved} message(s) redriven${where ? ` (${where})` : ''}`);
    });
}

function resumeCommand(): Command {
  return new Command('resume')
    .description("run an ended run's SE and missing items again, as `polyeval resume` does locally (the run is aggregated again once they are recorded)")
    .argument('<run-id>', 'the run')
    .action(async (runId: string, _flags: unknown, command: Command) => {
      const { client, json } = clientOf(command);
      const result = await client.resumeRun(runId);
      if (json) return print(toJson(result));
      print(`${runId}: resume ${result.resume} asked; its SE and missing items run again (see: polyeval remote status ${runId})`);
    });
}

interface RemoteLeaderboardFlags extends RemoteLeaderboardOptions {
  benchmark?: string;
}

function leaderboardCommand(): Command {
  return new Command('leaderboard')
    .description("best run per model on each board of a benchmark (one dataset, language and protocol), by the protocol's headline metric (Athena)")
    .argument('[benchmark]', `benchmark id (${BENCHMARKS.map((b) => b.id).join(', ')})`)
    .option('-b, --benchmark <id>', 'benchmark id (the same as the argument)')
    .option('--protocol <name>', 'only runs that followed this protocol (e.g. paper, calamita)')
    .option('--language <language>', 'only runs in this language (e.g. python, cpp)')
    .option('--dataset <spec>', 'only runs on this dataset, as given to -b (e.g. sample/rocode, rocode)')
    .option('--metric <metric>', "metric instead of each board's headline one")
    .option('--slice <slice>', "slice instead of the benchmark's headline slice(s)")
    .action(async (argument: string | undefined, flags: RemoteLeaderboardFlags, command: Command) => {
      const { benchmark: option, ...options } = flags;
      const benchmark = argument ?? option;
      if (!benchmark) throw new InputError('name the benchmark: polyeval remote leaderboard <benchmark>', { field: 'benchmark' });
      const { client, json } = clientOf(command);
      const board = await client.leaderboard(benchmark, options);
      if (json) return print(toJson(board));
      print(board.rows.length === 0 ? '(no completed runs)' : leaderboardTable(board.rows.map((row) => remoteRow(board.benchmark, row))));
    });
}

const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * An API row as a local leaderboard row, so `remote leaderboard` prints the table
 * `polyeval leaderboard` prints. An API from before boards sends no dataset: its rows are the
 * benchmark's one board; one from before run facts sends no items, cost or date.
 */
function remoteRow(benchmark: string, row: Record<string, unknown>): TableRow {
  return {
    benchmark,
    dataset: str(row.dataset) ?? benchmark,
    language: str(row.language),
    protocol: str(row.protocol),
    model: str(row.model) ?? '',
    metric: str(row.metric) ?? '',
    value: num(row.value),
    ci_low: num(row.ci_low),
    ci_high: num(row.ci_high),
    n: num(row.n) ?? 0,
    run_id: str(row.run_id) ?? '',
    runs: num(row.runs) ?? 1,
    ...(num(row.items) !== null ? { items: num(row.items) as number } : {}),
    ...(num(row.cost_usd) !== null ? { cost_usd: num(row.cost_usd) as number } : {}),
    ...(str(row.date) !== null ? { date: str(row.date) as string } : {}),
  };
}

export function remoteCommand(): Command {
  const remote = new Command('remote')
    .description('the same against the deployed API (SigV4-signed with your AWS credentials)')
    .option('--api <url>', 'the HTTP API URL (default: $POLYEVAL_API)')
    .option('--region <region>', 'signing region (default: AWS_REGION, else from the API host)')
    .option('--json', 'print exactly one JSON object on stdout');
  for (const sub of [
    runCommand(),
    statusCommand(),
    metricsCommand(),
    reportCommand(),
    cancelCommand(),
    redriveCommand(),
    resumeCommand(),
    leaderboardCommand(),
    selftestCommand(clientOf),
    remoteDoctorCommand(),
  ])
    remote.addCommand(sub.exitOverride());
  return remote;
}
