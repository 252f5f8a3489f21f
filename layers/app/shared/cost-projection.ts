/**
 * What a run's calls cost, for local runs, cloud workers and `--dry-run` alike: the price a
 * run is billed at, and a call's cost before it is made — prompt tokens estimated from the
 * text the provider sends (chars/4), completion tokens at max_tokens, an upper estimate the
 * engine's cost guard reserves.
 */
import type { Prompt } from '#core/models/index.ts';
import { promptText } from '#core/models/index.ts';
import type { RunContext } from '#core/run/index.ts';
import type { Manifest } from '#core/run/index.ts';
import { costAt, estimateTokens, isBilled, isTablePriced, priceForRun, type ModelPrice, type PriceTable, type UserPrices } from '#providers/index.ts';
import { batchPriceOf } from '#providers/index.ts';

/**
 * The price a run of `provider` bills at, as its plan resolves it once: the user's prices
 * (`--prices`, `--assume-price`, or a remote request's) over the shipped table, the table only
 * for providers whose model ids it names; undefined for unbilled providers or unpriced models.
 * @throws InputError with `capUsd` set and no price (before any call).
 */
export function planPrice(
  table: PriceTable,
  provider: { kind: string; model: string; id: string },
  capUsd: number | null,
  user: UserPrices,
  /** The run's day (YYYY-MM-DD): the price in force then (an introductory price that ended is not billed). */
  on?: string,
): ModelPrice | undefined {
  if (!isBilled(provider)) return undefined;
  return priceForRun(table, provider.model, { capUsd, user, tablePriced: isTablePriced(provider), on });
}

/** The manifest's record of a run's price (`price`): null when unpriced. */
export function recordedPrice(price: ModelPrice | undefined): NonNullable<Manifest['price']> | null {
  if (!price) return null;
  const { input_per_mtok, output_per_mtok, batch_input_per_mtok, batch_output_per_mtok, source, note } = price;
  return JSON.parse(JSON.stringify({ input_per_mtok, output_per_mtok, batch_input_per_mtok, batch_output_per_mtok, source, note })) as NonNullable<
    Manifest['price']
  >;
}

/**
 * USD of one call of the run, at the price its manifest recorded when it was planned
 * (`price`); a manifest written before that records the user's prices (`assumed_price`,
 * `price_overrides`), resolved over `table` as its plan did. null per call when unpriced,
 * undefined for unbilled providers. With `capUsd` set and no price, InputError.
 */
export function runCostOf(table: PriceTable, manifest: Manifest, capUsd: number | null = null): RunContext['costOf'] {
  if (!isBilled(manifest.model)) return undefined;
  const listed =
    manifest.price ??
    planPrice(table, { kind: manifest.model.kind, model: manifest.model.name, id: manifest.model.spec }, capUsd, {
      ...(manifest.price_overrides ? { models: manifest.price_overrides } : {}),
      assumed: manifest.assumed_price ?? null,
    });
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
