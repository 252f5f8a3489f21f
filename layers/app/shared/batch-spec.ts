/**
 * How a run that generates through a provider's batch API is planned — the one decision the
 * local run (local/batch-run.ts), the cloud's plan (cloud/batch.ts) and both dry runs
 * (shared/dry-run.ts) take, so an estimate counts the calls the run will make: batch jobs
 * return text and no log-probabilities, so a likert benchmark reads a digit from the text
 * (digit-parse: one call an item and a few completion tokens), never one call per choice.
 */
import type { AnyBenchmark } from '#core/benchmarks/index.ts';
import { InputError } from '#core/errors.ts';
import type { RunSpec } from '#core/run/index.ts';
import { scorerByKind } from '#core/scorers/index.ts';

type LogProbabilityMode = 'likelihood' | 'next-token';

/** Whether a new run of `spec` generates in batches: `--batch` for every new run, or a cell marked batch (`--batch-model`, `remote run --batch`). */
export function generatesInBatches(spec: RunSpec, batchFlag: boolean | undefined): boolean {
  return batchFlag === true || spec.batch === true;
}

/**
 * The spec a batch run is planned with: a likert benchmark's mode is digit-parse.
 * @throws InputError (from `refuse`, by default naming `--likert-mode` and `--batch`) when the spec forces a mode that reads log-probabilities.
 */
export function batchGenerationSpec(spec: RunSpec, benchmark: AnyBenchmark, refuse: (mode: LogProbabilityMode) => InputError = localRefusal): RunSpec {
  if (!scorerByKind(benchmark.scorer).likertModes) return spec;
  if (spec.likertMode === 'likelihood' || spec.likertMode === 'next-token') throw refuse(spec.likertMode);
  return { ...spec, likertMode: 'digit-parse' };
}

function localRefusal(mode: LogProbabilityMode): InputError {
  return new InputError(
    `--batch generates text, and batch jobs return no log-probabilities: --likert-mode ${mode} cannot run as a batch (use digit-parse, or run without --batch)`,
    { field: 'likertMode' },
  );
}
