/** The estimated cost of a run's model calls, from the shipped price table (as locally). */
import type { RunContext } from '#core/run/engine.ts';
import type { Manifest } from '#core/run/manifest.ts';
import { costAt, findModelPrice, loadPriceTable } from '#providers/index.ts';

export async function costOfManifest(manifest: Manifest): Promise<RunContext['costOf']> {
  if (manifest.model.kind === 'reference' || manifest.model.kind === 'replay') return undefined;
  const table = await loadPriceTable(undefined);
  // The manifest's assumed price (`--assume-price`) bills a model the table lacks, as locally.
  const price = findModelPrice(table, manifest.model.name) ?? manifest.assumed_price ?? undefined;
  return (usage) => (price ? costAt(price, usage) : null);
}
