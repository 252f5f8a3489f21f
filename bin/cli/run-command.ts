/**
 * `polyeval run`: evaluates a model on a benchmark and prints a results table (or, with
 * `--json`, exactly one JSON object on stdout).
 */
import { Command } from 'commander';
import { InputError, RunStopped } from '#core/errors.ts';
import { openHome, packageRoot } from '#app/local/home.ts';
import { resumeLocal, runLocal, type LocalRunOptions, type LocalRunResult } from '#app/local/run.ts';
import { dryRun, type DryRunPlan } from '#app/shared/dry-run.ts';
import { isSweepId, resumeSweep, runSweep, type CellFailure, type SweepDocument, type SweepOptions } from '#app/local/sweep.ts';
import { completedRuns } from '#app/local/leaderboard.ts';
import { buildLeaderboard } from '#core/report/index.ts';
import { loadCapabilityTable, loadPriceTable, parseAssumedPrice } from '#providers/index.ts';
import { schemesReading } from '#providers/index.ts';
import { BATCH_KINDS, batchKindOf } from '#providers/batch/registry.ts';
import { markBatchCells } from '#core/run/index.ts';
import type { RunSpec } from '#core/run/index.ts';
import { providerUsages } from '#app/shared/create-provider.ts';
import { leaderboardTable } from './leaderboard-command.ts';
import { createProgress } from './progress.ts';
import { createGridProgress } from './grid-progress.ts';
import { printRunResult, printRunsSummary } from './show.ts';
import { toJson } from './format.ts';
import { intOption, numberOption } from './options.ts';
import { addSpecOptions, gridFromFlags, isSweep, specFieldsOf, specFromFlags, type SpecFlags } from './spec-options.ts';
import { resumeIgnoredFlags, RUN_FLAG_RULES, SWEEP_RESUME_RULES, type RunFlagValues } from './run-rules.ts';
import { checkRules, groupHeading } from '#core/run/index.ts';

interface RunFlags extends SpecFlags {
  maxCost?: number;
  /** false with `--no-early-stop`. */
  earlyStop?: boolean;
  resume?: string;
  json?: boolean;
  dryRun?: boolean;
  concurrency?: number;
  modelConcurrency?: number;
  jobs?: number;
  region?: string;
  endpointUrl?: string;
  apiKeyEnv?: string;
  timeout?: number;
  prices?: string;
  assumePrice?: string;
  capabilities?: string;
  home?: string;
  quiet?: boolean;
  trustGeneratedCode?: boolean;
  batch?: boolean;
  batchModel?: string[];
  batchPoll?: number;
  batchTokenLimit?: number;
}

export function runCommand(): Command {
  return addSpecOptions(new Command('run').description('evaluate a model on a benchmark'), {
    benchmark: 'sample | sample/<suite> | <benchmark>:<path|s3://…|hf://…> | <benchmark> (Hugging Face dataset)',
    model: providerUsages(),
  })
    .optionsGroup(groupHeading('output'))
    .option('--resume <run-id>', 'continue a killed or stopped run; only missing items run')
    .option('--dry-run', 'print the plan (items, estimated tokens and cost) without calling any model')
    .option('--json', 'print exactly one JSON object on stdout at the end')
    .optionsGroup(groupHeading('execution'))
    .option(
      '--concurrency <count>',
      'model calls in flight; in a sweep: run the cells at the same time, at most <count> items in flight across the grid (each model keeps its own call limit, shared by its cells)',
      intOption('--concurrency', 1),
    )
    .option(
      '--model-concurrency <count>',
      "calls in flight per model (default: its provider's own, 4 for network providers); in a sweep each model's one limit, shared by its cells",
      intOption('--model-concurrency', 1),
    )
    .option('--jobs <count>', 'sandbox executions in flight (default: cores; a sweep shares them)', intOption('--jobs', 1))
    .optionsGroup(groupHeading('providers'))
    .option('--region <region>', `AWS region for ${schemesReading('region')}`)
    .option('--endpoint-url <url>', `endpoint override for ${schemesReading('endpoint-url')} (VPC endpoints, proxies)`)
    .option('--api-key-env <name>', `environment variable holding the API key for ${schemesReading('api-key-env')}`)
    .option('--timeout <ms>', 'hard timeout per model call', intOption('--timeout', 1))
    .optionsGroup(groupHeading('pricing'))
    .option('--prices <file.json>', 'price table overriding the shipped one')
    .option('--assume-price <input,output>', 'USD per million input,output tokens for a model the price table lacks (recorded in the manifest)')
    .optionsGroup(groupHeading('providers'))
    .option('--capabilities <file.json>', 'model-capabilities rules applied after the shipped ones (stop sequences, exclusive sampling, chat vs completion)')
    .optionsGroup(groupHeading('output'))
    .option('-q, --quiet', 'no progress on stderr')
    .optionsGroup(groupHeading('batch'))
    .option(
      '--batch',
      `generate through the provider's batch API (${BATCH_KINDS.map((k) => `${k.scheme}: ${k.api}`).join('; ')}) at its batch price; kill and --resume find the job again`,
    )
    .option(
      '--batch-model <provider>',
      'in a sweep: the cells of this -m model (named exactly as given) generate through its batch API, the others on demand (repeatable)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(
      '--batch-poll <seconds>',
      'with --batch or --batch-model: seconds between two polls of a running batch job (default 30)',
      numberOption('--batch-poll'),
    )
    .option(
      '--batch-token-limit <tokens>',
      "with --batch: the input tokens your organisation may have enqueued for the model at once (OpenAI's batch queue limit; default: the tier-1 figure the shipped table knows): jobs are sized and staggered to stay under it",
      numberOption('--batch-token-limit'),
    )
    .optionsGroup(groupHeading('execution'))
    .option(
      '--trust-generated-code',
      'execute model-written code even where the sandbox cannot keep credentials, files and network from it (see polyeval doctor)',
    )
    .action(async (flags: RunFlags, command: Command) => {
      const globals = command.optsWithGlobals<{ home?: string }>();
      const home = openHome(globals.home);
      const root = packageRoot();
      const progress = createProgress(process.stderr, flags.quiet ?? false);
      // The rules between flags, declared as data (run-rules.ts); the spec's own rules run where it is validated.
      checkRules(RUN_FLAG_RULES, runFlagValues(flags));
      // A resume keeps the run's recorded spec: a flag it would ignore is refused, naming it.
      if (flags.resume) {
        const ignored = resumeIgnoredFlags(specFieldsOf(flags), flags);
        if (ignored) throw ignored;
      }
      const batchModels = flags.batchModel ?? [];
      // The cells of the --batch-model models, checked before anything starts: named in the grid, with a batch API here.
      const marked = (specs: RunSpec[]): RunSpec[] => markBatchCells(specs, batchModels, '--batch-model', (model) => void batchKindOf(model));
      const calls = flags.modelConcurrency ?? flags.concurrency;
      const providerOptions = {
        ...(flags.region ? { region: flags.region } : {}),
        ...(flags.endpointUrl ? { endpointUrl: flags.endpointUrl } : {}),
        ...(flags.apiKeyEnv ? { apiKeyEnv: flags.apiKeyEnv } : {}),
        ...(calls ? { concurrency: calls } : {}),
        ...(flags.timeout ? { timeoutMs: flags.timeout } : {}),
        ...(flags.capabilities ? { capabilities: await loadCapabilityTable(flags.capabilities) } : {}),
        ...(flags.batchTokenLimit !== undefined ? { batchTokenLimit: flags.batchTokenLimit } : {}),
      };
      // A price file is read when a billed model needs it; a missing or malformed one is refused now, whatever the model.
      if (flags.prices) await loadPriceTable(flags.prices);
      const options = {
        home,
        packageRoot: root,
        providerOptions,
        ...(flags.jobs ? { jobs: flags.jobs } : {}),
        ...(flags.prices ? { pricesPath: flags.prices } : {}),
        ...(flags.assumePrice ? { assumePrice: parseAssumedPrice(flags.assumePrice) } : {}),
        ...(flags.trustGeneratedCode ? { trustGeneratedCode: true } : {}),
        ...(flags.batch || batchModels.length > 0 || flags.batchPoll !== undefined
          ? { batch: { newRuns: flags.batch ?? false, ...(flags.batchPoll !== undefined ? { pollMs: flags.batchPoll * 1000 } : {}) } }
          : {}),
        onEvent: (e: Parameters<NonNullable<LocalRunOptions['onEvent']>>[0]) => {
          if (e.type === 'planned') progress.planned(e.runId, e.total, e.done, e.benchmark, e.remaining);
          else if (e.type === 'recorded') progress.recorded(e.verdict, e.language);
          else if (e.type === 'batch' && !flags.quiet) process.stderr.write(`${e.runId}: ${e.line}\n`);
        },
      };
      let results: LocalRunResult[];
      let sweepId: string | undefined;
      let failures: CellFailure[] = [];
      const grid = createGridProgress(process.stderr, flags.quiet ?? false);
      // In a sweep, --concurrency bounds the grid; each model keeps one call limit, its
      // provider's own unless --model-concurrency sets it.
      const { concurrency: _calls, ...sweepProviderOptions } = providerOptions;
      const sweepOptions: SweepOptions = {
        ...options,
        providerOptions: { ...sweepProviderOptions, ...(flags.modelConcurrency ? { concurrency: flags.modelConcurrency } : {}) },
        onEvent: undefined,
        ...(flags.concurrency ? { gridConcurrency: flags.concurrency } : {}),
        onCellEvent: (cell, e) => grid.event(cell, e),
        onCellEnded: (cell) => grid.cellEnded(cell),
      };
      const announce = (doc: SweepDocument): void => {
        grid.cells(doc.specs.map((s) => ({ benchmark: s.benchmark, model: s.model })));
        const mode = flags.concurrency ? `cells at the same time, ≤ ${flags.concurrency} items in flight` : 'one cell after another';
        if (!flags.quiet)
          process.stderr.write(
            `sweep ${doc.sweep_id} · ${doc.specs.length} benchmark × model cells · ${mode} · resume with: polyeval run --resume ${doc.sweep_id}\n`,
          );
      };
      try {
        if (flags.resume) {
          if (await isSweepId(home, flags.resume)) {
            checkRules(SWEEP_RESUME_RULES, runFlagValues(flags));
            ({ sweep_id: sweepId, results, failures } = await resumeSweep(flags.resume, sweepOptions, announce));
          } else {
            results = [
              await resumeLocal(flags.resume, options, {
                ...(flags.maxCost !== undefined ? { maxCostUsd: flags.maxCost } : {}),
                ...(flags.earlyStop === false ? { earlyStop: false as const } : {}),
              }),
            ];
          }
        } else if (isSweep(flags)) {
          const specs = marked(gridFromFlags(flags));
          if (flags.dryRun) {
            const plans = (await Promise.all(specs.map((spec) => dryRun(spec, options)))).flat();
            printPlans(plans, flags.json ?? false, true, (flags.batch ?? false) || batchModels.length > 0);
            return;
          }
          ({ sweep_id: sweepId, results, failures } = await runSweep(specs, sweepOptions, announce));
        } else {
          const [spec] = marked([specFromFlags(flags)]) as [RunSpec];
          if (flags.dryRun) {
            const plans = await dryRun(spec, options);
            printPlans(plans, flags.json ?? false, false, (flags.batch ?? false) || batchModels.length > 0);
            return;
          }
          results = await runLocal(spec, options);
        }
      } finally {
        progress.finish();
        grid.finish();
      }
      if (sweepId) {
        // A sweep ends with the leaderboard of the runs it ran (completed ones only).
        const board = buildLeaderboard(await completedRuns(home, new Set(results.map((r) => r.run_id))));
        const failed = failures.map((f) => ({ benchmark: f.benchmark, model: f.model, error: f.error.message }));
        if (flags.json)
          process.stdout.write(`${toJson({ sweep_id: sweepId, runs: results.map(jsonShape), leaderboard: board, ...(failed.length ? { failed } : {}) })}\n`);
        else {
          printRunsSummary(results);
          process.stdout.write(`\nleaderboard of sweep ${sweepId}:\n${leaderboardTable(board)}\n`);
        }
        if (failures.length) throw sweepFailure(sweepId, failures, results.length);
      } else if (flags.json) {
        const shaped = results.map(jsonShape);
        process.stdout.write(`${toJson(shaped.length === 1 ? shaped[0] : { runs: shaped })}\n`);
      } else {
        if (results.length === 1) for (const r of results) printRunResult(r);
        else printRunsSummary(results);
      }
      const stopped = results.find((r) => r.status === 'stopped');
      if (stopped && stopped.status === 'stopped')
        throw new RunStopped(`run ${stopped.run_id} stopped: ${stopped.reason}; continue with: polyeval run --resume ${stopped.run_id}`);
    });
}

/** The flags as the rules read them. */
function runFlagValues(flags: RunFlags): RunFlagValues {
  return { ...flags, sweep: isSweep(flags) };
}

/**
 * A sweep whose cells failed ends with one line per failed cell on stderr and the exit code
 * of the worst failure: 1 for an internal error, else 2 for bad input, as for a single run.
 */
function sweepFailure(sweepId: string, failures: readonly CellFailure[], runs: number): Error {
  for (const f of failures) process.stderr.write(`polyeval: cell ${f.cell + 1} (${f.benchmark} × ${f.model}) failed: ${f.error.message}\n`);
  const message = `sweep ${sweepId}: ${failures.length} cell${failures.length > 1 ? 's' : ''} failed (listed above); ${runs} run${runs === 1 ? '' : 's'} of the other cells recorded; fix and continue with: polyeval run --resume ${sweepId}`;
  const internal = failures.find((f) => !(f.error instanceof InputError) && !(f.error instanceof RunStopped));
  if (internal) return new Error(`${message}\n${internal.error.stack ?? internal.error.message}`);
  if (failures.some((f) => f.error instanceof InputError)) return new InputError(message);
  return new RunStopped(message);
}

/** The dry-run plans: one JSON object (`{plans}` when several or a sweep), or a line each. */
function printPlans(plans: readonly DryRunPlan[], json: boolean, sweep: boolean, batch: boolean): void {
  if (json) process.stdout.write(`${toJson(plans.length === 1 && !sweep ? plans[0] : { plans })}\n`);
  else
    for (const p of plans)
      process.stdout.write(
        `${p.benchmark}${sweep ? ` · ${p.model}` : ''}: ${p.tasks} tasks × n=${p.n} → ${p.items} items · ~${p.prompt_tokens} prompt + ≤${p.completion_tokens} completion tokens · ${p.cost_usd === null ? `cost unknown (${p.cost_reason})` : `≈ $${p.cost_usd.toFixed(4)}${batch ? ' on demand' : ''}`}${batch ? batchCost(p) : ''}\n`,
      );
}

/** `--dry-run --batch`: the batch price beside the on-demand one. */
function batchCost(p: DryRunPlan): string {
  if (p.batch_cost_usd === undefined) return '';
  return p.batch_cost_usd === null
    ? ' · batch price unknown (no batch price in the price table: billed at the on-demand price)'
    : ` · ≈ $${p.batch_cost_usd.toFixed(4)} as a batch`;
}

function jsonShape(r: LocalRunResult): Record<string, unknown> {
  if (r.status === 'stopped') {
    const { language: _language, ...stopped } = r;
    return stopped;
  }
  return {
    run_id: r.run_id,
    benchmark: r.benchmark,
    model: r.model,
    n: r.n,
    items: r.items,
    verdicts: r.verdicts,
    metrics: r.metrics,
    report: r.report,
    likert_mode: r.likert_mode,
    ...(r.likert_scoring ? { likert_scoring: r.likert_scoring } : {}),
    ...(r.warnings && r.warnings.length > 0 ? { warnings: r.warnings } : {}),
    ...(r.protocol ? { protocol: r.protocol } : {}),
    status: r.status,
  };
}
