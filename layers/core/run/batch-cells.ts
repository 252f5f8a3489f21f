/**
 * Which cells of a sweep generate as batches: every cell (`--batch`, a nightly sweep's
 * `"batch": true`) or the cells of the models named (`--batch-model <model>`, a nightly
 * sweep's `"batch": ["<model>", …]`). A model is named exactly as the sweep lists it.
 */
import { InputError } from '../errors.ts';
import type { RunSpec } from './spec.ts';

/**
 * The grid's specs with `batch: true` on the cells `batch` selects; `check` refuses a model
 * whose provider has no batch API (its error names the model, under `field`).
 *
 * @example
 * markBatchCells(specs, ['openai:https://api.openai.com/v1#gpt-4o-mini'], '--batch-model', checkBatch);
 * @throws InputError naming `field` for a model not in the grid, or one `check` refuses.
 */
export function markBatchCells(specs: readonly RunSpec[], batch: boolean | readonly string[], field: string, check: (model: string) => void): RunSpec[] {
  if (batch === false) return [...specs];
  const models = [...new Set(specs.map((s) => s.model))];
  const chosen = batch === true ? models : [...new Set(batch.map((m) => m.trim()))];
  for (const model of chosen) {
    if (!models.includes(model))
      throw new InputError(
        `${field} "${model}" is not one of the sweep's models (${models.map((m) => JSON.stringify(m)).join(', ')}); name a model exactly as given`,
        {
          field,
        },
      );
    try {
      check(model);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      throw new InputError(`${field}: model "${model}" cannot run as a batch: ${error.detail}`, { field }, { cause: error });
    }
  }
  return specs.map((spec) => (chosen.includes(spec.model) ? { ...spec, batch: true } : spec));
}
