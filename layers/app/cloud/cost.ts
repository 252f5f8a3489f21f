/** The estimated cost of a run's model calls, from the shipped price table (as locally). */
import type { RunContext } from '#core/run/engine.ts';
import type { Manifest } from '#core/run/manifest.ts';
import { promptText } from '#core/models/prompt-text.ts';
import { costAt, estimateTokens, findModelPrice, isBilled, loadPriceTable } from '#providers/index.ts';

export async function costOfManifest(manifest: Manifest): Promise<RunContext['costOf']> {
  if (!isBilled(manifest.model)) return undefined;
  const table = await loadPriceTable(undefined);
  // The manifest's assumed price (`--assume-price`) bills a model the table lacks, as locally.
  const price = findModelPrice(table, manifest.model.name) ?? manifest.assumed_price ?? undefined;
  return (usage) => (price ? costAt(price, usage) : null);
}

/**
 * A call's upper cost before it is made (prompt tokens estimated from the text, completion at
 * max_tokens), which the engine's cost guard reserves. TODO(lead): local-run.ts has the same
 * formula in costFunctions; one shared helper in providers would serve both.
 */
export function projectionOf(costOf: NonNullable<RunContext['costOf']>): NonNullable<RunContext['projectCost']> {
  return (prompt, maxTokens, calls) => costOf({ promptTokens: estimateTokens(promptText(prompt)) * calls, completionTokens: maxTokens }) ?? 0;
}
