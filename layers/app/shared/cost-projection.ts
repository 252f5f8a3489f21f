/**
 * What a run's calls cost, for local runs, cloud workers and `--dry-run` alike: the price a
 * run is billed at, and a call's cost before it is made — prompt tokens estimated from the
 * text the provider sends (chars/4), completion tokens at max_tokens, an upper estimate the
 * engine's cost guard reserves.
 */
import type { Prompt } from '#core/models/provider.ts';
import { promptText } from '#core/models/prompt-text.ts';
import type { RunContext } from '#core/run/engine.ts';
import type { Manifest } from '#core/run/manifest.ts';
import { costAt, estimateTokens, isBilled, priceForRun, type PriceTable } from '#providers/index.ts';
import { batchPriceOf, withPriceOverrides } from '#providers/prices.ts';

/**
 * USD of one call of the run, at the price it is billed at: the table's, else the manifest's
 * assumed one (`--assume-price`), with a remote run's request prices over the table; null per call when there is neither, undefined for unbilled
 * providers. With `capUsd` set and no price, InputError (as when the run was planned).
 */
export function runCostOf(table: PriceTable, manifest: Manifest, capUsd: number | null = null): RunContext['costOf'] {
  if (!isBilled(manifest.model)) return undefined;
  const listed = priceForRun(withPriceOverrides(table, manifest.price_overrides), manifest.model.name, { capUsd, assumed: manifest.assumed_price ?? null });
  // A batch run is billed at the batch price where the table has one (else on demand: errs high).
  const price = listed && manifest.generation === 'batch' ? (batchPriceOf(listed) ?? listed) : listed;
  return (usage) => (price ? costAt(price, usage) : null);
}

/** Estimated tokens of a prompt: of the exact text a raw-text endpoint is sent. */
export function estimatePromptTokens(prompt: Prompt): number {
  return estimateTokens(promptText(prompt));
}

/** The projection the engine reserves before each call, from the run's cost function. */
export function projectionOf(costOf: NonNullable<RunContext['costOf']>): NonNullable<RunContext['projectCost']> {
  return (prompt, maxTokens, calls) => costOf({ promptTokens: estimatePromptTokens(prompt) * calls, completionTokens: maxTokens }) ?? 0;
}
