/** The cost of a cloud run's model calls, from the shipped price table (as locally: shared/cost-projection.ts). */
import type { RunContext } from '#core/run/index.ts';
import type { Manifest } from '#core/run/index.ts';
import { loadPriceTable } from '#providers/index.ts';
import { runCostOf } from '../shared/cost-projection.ts';

export async function costOfManifest(manifest: Manifest): Promise<RunContext['costOf']> {
  return runCostOf(await loadPriceTable(undefined), manifest);
}
