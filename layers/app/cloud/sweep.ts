/**
 * The nightly sweep: benchmarks × models with shared parameters, as
 * run specs validated by the same schema as POST /runs. Parameter names may be written as in
 * the CLI's JSON (`top_p`, `max_tokens`) or as in the spec (`topP`, `maxTokens`). `batch`
 * makes every cell (`true`) or the named models' cells (`["<model>", …]`) batch runs.
 */
import { z } from 'zod';
import { parseUserDocument } from '#core/run/index.ts';
import { InputError } from '#core/errors.ts';
import { markBatchCells } from '#core/run/index.ts';
import { parseRunSpec, type RunSpec } from '#core/run/index.ts';
import { RUN_OPTIONS } from '#core/run/index.ts';
import { aliasesOf } from '#core/run/index.ts';
import { checkCloudBatch } from './batch-clients.ts';

export const NightlySweepSchema = z
  .object({
    benchmarks: z.array(z.string().min(1)).min(1),
    models: z.array(z.string().min(1)).min(1),
    params: z.record(z.string(), z.unknown()).default({}),
    split: z.string().min(1).optional(),
    /** `true`: every cell generates through its provider's batch API; a list of models: those models' cells (the others on demand). */
    batch: z.union([z.boolean(), z.array(z.string().min(1)).min(1)]).optional(),
  })
  .strict();

export type NightlySweepInput = z.input<typeof NightlySweepSchema>;

/** A validated sweep (also what infra's config holds for an inline sweep). */
export type NightlySweep = z.output<typeof NightlySweepSchema>;

/** A `params` name written as in the CLI's JSON (`top_p`) → the spec field, from the option declarations. */
const SNAKE_TO_SPEC: Readonly<Record<string, string>> = aliasesOf(RUN_OPTIONS);

/** Parses a sweep (an object or its JSON text); InputError names the bad field. */
export function parseSweep(raw: unknown, origin = 'nightly sweep'): NightlySweep {
  return parseUserDocument(NightlySweepSchema, typeof raw === 'string' ? raw : JSON.stringify(raw ?? null), origin);
}

/**
 * One run spec per benchmark × model, in that order; the cells `batch` selects carry `batch: true`.
 * @throws InputError naming `batch` for a model it names that is not in `models`, or whose provider has no batch API in the cloud.
 */
export function sweepSpecs(sweep: NightlySweep, origin = 'nightly sweep'): RunSpec[] {
  const params = Object.fromEntries(Object.entries(sweep.params).map(([key, value]) => [SNAKE_TO_SPEC[key] ?? key, value]));
  const specs: RunSpec[] = [];
  for (const benchmark of sweep.benchmarks) {
    for (const model of sweep.models) {
      specs.push(parseRunSpec({ ...params, ...(sweep.split ? { split: sweep.split } : {}), benchmark, model }, origin));
    }
  }
  try {
    return markBatchCells(specs, sweep.batch ?? false, 'batch', checkCloudBatch);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    throw new InputError(error.detail, { file: origin, field: 'batch' }, { cause: error });
  }
}
