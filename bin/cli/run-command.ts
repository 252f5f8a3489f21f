/**
 * `polyeval run`: evaluates a model on a benchmark and prints a results table (or, with
 * `--json`, exactly one JSON object on stdout).
 */
import { Command } from 'commander';
import { InputError, RunStopped } from '#core/errors.ts';
import { openHome, packageRoot } from '#app/home.ts';
import { resumeLocal, runLocal, type LocalRunResult } from '#app/local-run.ts';
import { dryRun } from '#app/dry-run.ts';
import { createProgress } from './progress.ts';
import { printRunResult } from './show.ts';
import { toJson } from './format.ts';
import { intOption } from './options.ts';
import { addSpecOptions, specFromFlags, type SpecFlags } from './spec-options.ts';

interface RunFlags extends SpecFlags {
  resume?: string;
  json?: boolean;
  dryRun?: boolean;
  concurrency?: number;
  jobs?: number;
  region?: string;
  endpointUrl?: string;
  apiKeyEnv?: string;
  timeout?: number;
  prices?: string;
  home?: string;
  quiet?: boolean;
  trustGeneratedCode?: boolean;
}

export function runCommand(): Command {
  return addSpecOptions(new Command('run').description('evaluate a model on a benchmark'), {
    benchmark: 'sample | sample/<suite> | <benchmark>:<path|s3://…|hf://…> | <benchmark> (Hugging Face dataset)',
    model: 'reference | replay:<file.jsonl> | bedrock:<id> | sagemaker:<endpoint>#tgi|#openai | openai:<url>#<model>',
  })
    .option('--resume <run-id>', 'continue a killed or stopped run; only missing items run')
    .option('--dry-run', 'print the plan (items, estimated tokens and cost) without calling any model')
    .option('--json', 'print exactly one JSON object on stdout at the end')
    .option('--concurrency <count>', 'model calls in flight', intOption('--concurrency', 1))
    .option('--jobs <count>', 'sandbox executions in flight (default: cores)', intOption('--jobs', 1))
    .option('--region <region>', 'AWS region for bedrock:/sagemaker:')
    .option('--endpoint-url <url>', 'endpoint override for bedrock:/sagemaker: (VPC endpoints, proxies)')
    .option('--api-key-env <name>', 'environment variable holding the API key for openai:')
    .option('--timeout <ms>', 'hard timeout per model call', intOption('--timeout', 1))
    .option('--prices <file.json>', 'price table overriding the shipped one')
    .option('-q, --quiet', 'no progress on stderr')
    .option('--trust-generated-code', 'execute model-written code even where the sandbox cannot keep credentials, files and network from it (see polyeval doctor)')
    .action(async (flags: RunFlags, command: Command) => {
      const globals = command.optsWithGlobals<{ home?: string }>();
      const home = openHome(globals.home);
      const root = packageRoot();
      const progress = createProgress(process.stderr, flags.quiet ?? false);
      const providerOptions = {
        ...(flags.region ? { region: flags.region } : {}),
        ...(flags.endpointUrl ? { endpointUrl: flags.endpointUrl } : {}),
        ...(flags.apiKeyEnv ? { apiKeyEnv: flags.apiKeyEnv } : {}),
        ...(flags.concurrency ? { concurrency: flags.concurrency } : {}),
        ...(flags.timeout ? { timeoutMs: flags.timeout } : {}),
      };
      const options = {
        home,
        packageRoot: root,
        providerOptions,
        ...(flags.jobs ? { jobs: flags.jobs } : {}),
        ...(flags.prices ? { pricesPath: flags.prices } : {}),
        ...(flags.trustGeneratedCode ? { trustGeneratedCode: true } : {}),
        onEvent: (e: { type: string; verdict?: unknown; runId?: string; total?: number; done?: number; benchmark?: string }) => {
          if (e.type === 'planned') progress.planned(e.runId ?? '', e.total ?? 0, e.done ?? 0, e.benchmark ?? '');
          else if (e.type === 'recorded') progress.recorded(e.verdict as never);
        },
      };
      let results: LocalRunResult[];
      try {
        if (flags.resume) {
          if (flags.benchmark) throw new InputError('--resume takes the benchmark and model from the run; do not pass -b', { field: 'benchmark' });
          results = [await resumeLocal(flags.resume, options, flags.maxCost !== undefined ? { maxCostUsd: flags.maxCost } : {})];
        } else {
          const spec = specFromFlags(flags);
          if (flags.dryRun) {
            const plans = await dryRun(spec, options);
            if (flags.json) process.stdout.write(`${toJson(plans.length === 1 ? plans[0] : { plans })}\n`);
            else for (const p of plans) process.stdout.write(`${p.benchmark}: ${p.tasks} tasks × n=${p.n} → ${p.items} items · ~${p.prompt_tokens} prompt + ≤${p.completion_tokens} completion tokens · ${p.cost_usd === null ? `cost unknown (${p.cost_reason})` : `≈ $${p.cost_usd.toFixed(4)}`}\n`);
            return;
          }
          results = await runLocal(spec, options);
        }
      } finally {
        progress.finish();
      }
      if (flags.json) {
        const shaped = results.map(jsonShape);
        process.stdout.write(`${toJson(shaped.length === 1 ? shaped[0] : { runs: shaped })}\n`);
      } else {
        for (const r of results) printRunResult(r);
      }
      const stopped = results.find((r) => r.status === 'stopped');
      if (stopped && stopped.status === 'stopped') throw new RunStopped(`run ${stopped.run_id} stopped: ${stopped.reason}; continue with: polyeval run --resume ${stopped.run_id}`);
    });
}

function jsonShape(r: LocalRunResult): Record<string, unknown> {
  if (r.status === 'stopped') return { ...r };
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
    ...(r.protocol ? { protocol: r.protocol } : {}),
    status: r.status,
  };
}
