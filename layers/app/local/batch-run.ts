/**
 * `polyeval run --batch` on this machine: the run's generate stage goes through the
 * provider's batch API (core/run/batch-stage.ts over a client of layers/providers/batch/),
 * polled every `pollMs`; each job's state and counts are the run's status line in the ledger
 * (`polyeval list runs`) and a progress event.
 */
import type { AnyBenchmark } from '#core/benchmarks/index.ts';
import { ProviderError, RunStopped } from '#core/errors.ts';
import { describeJob } from '#core/run/index.ts';
import { generateInBatches } from '#core/run/index.ts';
import type { RunContext } from '#core/run/index.ts';
import type { PipelineOptions } from '#core/run/index.ts';
import type { RunSpec } from '#core/run/index.ts';
import { createBatchClient } from '#providers/batch/registry.ts';
import type { ProviderOptions } from '#providers/index.ts';
import { batchGenerationSpec, generatesInBatches } from '../shared/batch-spec.ts';

/** Default time between two polls of a running job: batch jobs take minutes to hours. */
export const DEFAULT_BATCH_POLL_MS = 30_000;

export interface BatchOptions {
  /** New runs generate in batches (`--batch`); false: only the poll interval of resumed batch runs is set. */
  newRuns: boolean;
  /** Time between polls (default {@link DEFAULT_BATCH_POLL_MS}). */
  pollMs?: number;
}

/** A job of a run changed state: one line naming the job, its provider status and counts. */
export interface BatchEvent {
  type: 'batch';
  runId: string;
  line: string;
}

interface BatchRunOptions {
  batch?: BatchOptions;
  providerOptions?: ProviderOptions;
  onEvent?: (event: BatchEvent) => void;
}

/**
 * The spec a batch run is planned with: its provider must have a batch API (refused here,
 * before any call), and a likert benchmark reads a digit from the text, since batch jobs
 * return no log-probabilities (`--likert-mode likelihood|next-token` is refused).
 */
export function batchRunSpec(spec: RunSpec, benchmark: AnyBenchmark, opts: BatchRunOptions): RunSpec {
  // `--batch` (every new run) or a sweep cell marked batch (`--batch-model`).
  if (!generatesInBatches(spec, opts.batch?.newRuns)) return spec;
  createBatchClient(spec.model, opts.providerOptions);
  return batchGenerationSpec(spec, benchmark);
}

/** The pipeline's generate-all stage for a batch run. */
export function batchGenerator(ctx: RunContext, opts: BatchRunOptions): NonNullable<PipelineOptions['generateAll']> {
  const client = createBatchClient(ctx.manifest.model.spec, opts.providerOptions);
  const runId = ctx.manifest.run_id;
  return (items, emit) =>
    generateInBatches(
      ctx,
      items,
      {
        client,
        pollMs: opts.batch?.pollMs ?? DEFAULT_BATCH_POLL_MS,
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        byteLength: (text) => Buffer.byteLength(text, 'utf8'),
        onStatus: (job) => opts.onEvent?.({ type: 'batch', runId, line: describeJob(job) }),
      },
      emit,
    ).catch((error: unknown) => {
      // The batch API failing after its retries (a host it cannot reach, a server error, a
      // refused key) stops the run as the on-demand early stop does: resumable, no stack.
      if (error instanceof ProviderError) {
        throw new RunStopped(
          `the batch API of ${ctx.manifest.model.spec} failed: ${error.message}; fix the cause and continue the run with --resume (recorded work and submitted jobs are kept)`,
          {
            cause: error,
          },
        );
      }
      throw error;
    });
}
