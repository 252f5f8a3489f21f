/**
 * The rules between `polyeval run`'s own flags (execution, batch and resume: options a run spec
 * does not store, so the HTTP API and sweep files never carry them), declared as data beside
 * the run spec's rules (layers/core/run/run-options.ts `RUN_RULES`, which every surface checks).
 */
import { InputError } from '#core/errors.ts';
import type { OptionRule } from '#core/run/index.ts';
import { RUN_OPTIONS, spellingsOf, type RunOptions } from '#core/run/index.ts';

/** What the rules read: the flags as parsed, and whether they make a sweep. */
export interface RunFlagValues {
  sweep: boolean;
  resume?: string;
  benchmark?: readonly string[];
  model?: readonly string[];
  concurrency?: number;
  modelConcurrency?: number;
  batch?: boolean;
  batchModel?: readonly string[];
  batchPoll?: number;
  batchTokenLimit?: number;
  maxCost?: number;
  earlyStop?: boolean;
}

const batchGiven = (v: RunFlagValues): boolean => (v.batch ?? false) || (v.batchModel?.length ?? 0) > 0;

/** Checked before anything starts (no file read, no model called). */
export const RUN_FLAG_RULES: readonly OptionRule<RunFlagValues>[] = [
  {
    id: 'concurrency-agrees',
    field: 'model-concurrency',
    check: (v) =>
      v.concurrency !== undefined && v.modelConcurrency !== undefined && v.concurrency !== v.modelConcurrency && !v.sweep && !v.resume
        ? `--concurrency ${v.concurrency} and --model-concurrency ${v.modelConcurrency} disagree: in a single run both set the model calls in flight; give one`
        : undefined,
  },
  {
    id: 'batch-poll-positive',
    field: 'batch-poll',
    check: (v) => (v.batchPoll !== undefined && !(v.batchPoll > 0) ? `--batch-poll must be a positive number of seconds, got ${v.batchPoll}` : undefined),
  },
  {
    id: 'batch-poll-requires-batch',
    field: 'batch-poll',
    check: (v) =>
      v.batchPoll !== undefined && !batchGiven(v) && !v.resume
        ? '--batch-poll sets how often a batch job is polled: give it with --batch or --batch-model (or with --resume of a batch run)'
        : undefined,
  },
  {
    id: 'batch-token-limit-positive',
    field: 'batch-token-limit',
    check: (v) =>
      v.batchTokenLimit !== undefined && !(Number.isInteger(v.batchTokenLimit) && v.batchTokenLimit > 0)
        ? `--batch-token-limit must be a positive whole number of tokens, got ${v.batchTokenLimit}`
        : undefined,
  },
  {
    id: 'batch-token-limit-requires-batch',
    field: 'batch-token-limit',
    check: (v) =>
      v.batchTokenLimit !== undefined && !batchGiven(v) && !v.resume
        ? '--batch-token-limit sizes batch jobs: give it with --batch or --batch-model (or with --resume of a batch run)'
        : undefined,
  },
  {
    id: 'batch-conflicts-resume',
    field: 'batch',
    check: (v) =>
      v.batch && v.resume ? '--resume continues a run in the mode it was planned with; do not pass --batch (a batch run resumes as a batch)' : undefined,
  },
  {
    id: 'batch-model-conflicts-resume',
    field: 'batch-model',
    check: (v) =>
      !v.batch && (v.batchModel?.length ?? 0) > 0 && v.resume
        ? '--resume continues a run in the mode it was planned with; do not pass --batch-model (a batch run resumes as a batch)'
        : undefined,
  },
  {
    id: 'batch-conflicts-batch-model',
    field: 'batch-model',
    check: (v) => (v.batch && (v.batchModel?.length ?? 0) > 0 ? '--batch makes every cell a batch; --batch-model picks some: give one of them' : undefined),
  },
  {
    id: 'resume-conflicts-benchmark',
    field: 'benchmark',
    check: (v) => (v.resume && v.benchmark ? '--resume takes the benchmark and model from the run; do not pass -b' : undefined),
  },
  {
    id: 'resume-conflicts-model',
    field: 'model',
    check: (v) => (v.resume && v.model?.length ? '--resume takes the benchmark and model from the run; do not pass -m' : undefined),
  },
];

/** Checked once `--resume <id>` is known to name a whole sweep (reading the home tells). */
export const SWEEP_RESUME_RULES: readonly OptionRule<RunFlagValues>[] = [
  {
    id: 'sweep-resume-max-cost',
    field: 'max-cost',
    check: (v) =>
      v.maxCost !== undefined ? '--max-cost cannot be changed for a whole sweep; resume its stopped run with --resume <run-id> --max-cost' : undefined,
  },
  {
    id: 'sweep-resume-early-stop',
    field: 'early-stop',
    check: (v) =>
      v.earlyStop === false ? '--no-early-stop cannot be changed for a whole sweep; resume its stopped run with --resume <run-id> --no-early-stop' : undefined,
  },
];

/**
 * The run-spec fields a `--resume` may change: the cost cap (how a run `--max-cost` stopped
 * continues) and the early stop. Every other run-spec field is the recorded run's: a resumed
 * run keeps its manifest, so such a flag would be ignored without a word.
 */
const RESUME_MAY_CHANGE: ReadonlySet<string> = new Set(['maxCostUsd', 'earlyStop']);

/**
 * `--resume` with flags it would ignore (run-spec fields other than `--max-cost` and
 * `--no-early-stop`, `--assume-price`, `--dry-run`): an InputError naming them, or undefined.
 * `given` holds the run-spec fields the flags set (spec-options.ts `specFieldsOf`).
 */
export function resumeIgnoredFlags(given: Readonly<Record<string, unknown>>, flags: { assumePrice?: string; dryRun?: boolean }): InputError | undefined {
  const options = RUN_OPTIONS as RunOptions;
  const named = Object.keys(given)
    .filter((field) => !RESUME_MAY_CHANGE.has(field))
    .map((field) => {
      const option = options[field];
      return option ? (spellingsOf(option)[0] ?? field) : field;
    });
  if (flags.assumePrice !== undefined) named.push('--assume-price');
  if (named.length > 0) {
    return new InputError(
      `--resume continues the run with the settings it was planned with: ${named.join(', ')} would not change it, so ${named.length > 1 ? 'they are' : 'it is'} refused (a resume may change --max-cost, --no-early-stop, the provider settings --region, --endpoint-url, --api-key-env, --timeout, --capabilities, --prices, and --concurrency, --model-concurrency, --jobs, --trust-generated-code, --batch-poll, --batch-token-limit; for other settings start a new run)`,
    );
  }
  if (flags.dryRun)
    return new InputError('--dry-run plans a new run without calling a model, and --resume runs the remaining items of a recorded one: give one of the two');
  return undefined;
}
