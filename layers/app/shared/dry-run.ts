/**
 * `--dry-run`: the plan of a run and its estimated tokens and cost, without calling a model.
 * Prompt tokens are estimated from the prompt text (chars/4); completion tokens are the
 * max_tokens bound each call sends (raised for a model that cannot turn its thinking off), so
 * the cost is an upper estimate, at the price in force today.
 */
import { parseBenchmarkSpec } from '#core/benchmarks/index.ts';
import type { GenerationParams, Prompt } from '#core/models/index.ts';
import type { Manifest } from '#core/run/index.ts';
import { planRun } from '#core/run/index.ts';
import { protocolChoiceOf, type RunSpec } from '#core/run/index.ts';
import { costAt, isBilled, isTablePriced, loadUserPrices, shippedPriceTable, type ModelPrice, type ProviderOptions } from '#providers/index.ts';
import { batchPriceOf } from '#providers/index.ts';
import { estimatePromptTokens, planPrice } from './cost-projection.ts';
import { createProvider } from './create-provider.ts';
import { loadSource } from './load-benchmark.ts';
import { batchGenerationSpec, generatesInBatches } from './batch-spec.ts';

type DryRunProtocol = NonNullable<Manifest['protocol']>;

export interface DryRunPlan {
  benchmark: string;
  model: string;
  tasks: number;
  n: number;
  items: number;
  likert_mode: string | null;
  protocol?: DryRunProtocol;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number | null;
  cost_reason?: string;
  /** The same items through the provider's batch API, at the table's batch price; null when it has none. */
  batch_cost_usd?: number | null;
}

/** What a dry run reads: where suites and the cache are, the price table, the provider's options (a run's options fit). */
export interface DryRunOptions {
  home: { cacheDir: string };
  packageRoot: string;
  pricesPath?: string;
  /** `--assume-price`: wins over the shipped table, as in the run itself. */
  assumePrice?: ModelPrice;
  providerOptions?: ProviderOptions;
  env?: NodeJS.ProcessEnv;
  /** Today (the price in force on this day is the one a run started now would bill); default the clock. */
  now?: () => Date;
  /** `--batch`: every new run generates in batches (a spec marked `batch` does anyway), planned as the run plans it (batch-spec.ts). */
  batch?: { newRuns: boolean };
}

export async function dryRun(spec: RunSpec, opts: DryRunOptions): Promise<DryRunPlan[]> {
  const table = shippedPriceTable();
  const user = await loadUserPrices(opts.pricesPath, opts.assumePrice);
  const out: DryRunPlan[] = [];
  for (const source of parseBenchmarkSpec(spec.benchmark, protocolChoiceOf(spec))) {
    const loaded = await loadSource(source, {
      packageRoot: opts.packageRoot,
      cacheDir: opts.home.cacheDir,
      env: opts.env ?? process.env,
      ...(spec.split ? { split: spec.split } : {}),
    });
    const provider = await createProvider(spec.model, opts.providerOptions);
    const meta = {
      runId: 'dry-run',
      createdAt: new Date(0).toISOString(),
      code: { version: '', revision: null, dirty: null },
      packages: {},
      toolchains: [],
      probe: false,
    };
    // The mode the run itself will use: a batch run's likert items are digit-parse (one call an item), not a call per choice.
    const asBatch = generatesInBatches(spec, opts.batch?.newRuns);
    const planned = asBatch ? batchGenerationSpec(spec, loaded.benchmark) : spec;
    const plan = await planRun(loaded, planned, provider, meta);
    const sentMaxTokens = (params: GenerationParams, style: Prompt['style']): number =>
      Math.max(params.maxTokens, provider.adaptParams?.(params, style).maxTokens ?? params.maxTokens);
    const choices = loaded.benchmark.choices?.length ?? 0;
    const usageOf = (p: typeof plan): { promptTokens: number; completionTokens: number } => {
      const tasks = new Map(p.tasks.map((t) => [t.id, t]));
      let promptTokens = 0;
      let completionTokens = 0;
      for (const item of p.items) {
        const task = tasks.get(item.taskId);
        if (!task) continue;
        const prompt = loaded.benchmark.buildPrompt(task, { pool: loaded.tasks, ...(item.language ? { language: item.language } : {}) });
        const tokens = estimatePromptTokens(prompt);
        if (p.manifest.likert_mode === 'likelihood') promptTokens += tokens * Math.max(1, choices);
        else {
          promptTokens += tokens;
          // The limit each call sends: raised where the model cannot turn its thinking off, as the cost guard reserves it.
          completionTokens += sentMaxTokens(p.manifest.params, prompt.style);
        }
      }
      return { promptTokens, completionTokens };
    };
    const { promptTokens, completionTokens } = usageOf(plan);
    const usage = { promptTokens, completionTokens };
    // The price the run would bill at (the user's prices first), as the run resolves it.
    const price = planPrice(table, provider, null, user, (opts.now ?? (() => new Date()))().toISOString().slice(0, 10));
    const cost = !isBilled(provider) ? { usd: 0 } : price ? { usd: costAt(price, usage) } : { usd: null, reason: unpriced(provider) };
    const batch = price ? batchPriceOf(price) : undefined;
    // The batch figure is what a batch run of this spec would make: on demand, a likert benchmark may
    // call once per choice, where the batch run reads a digit (batch-spec.ts); a mode a batch cannot run keeps this plan's.
    const batchUsage = batch && !asBatch ? await batchRunUsage() : usage;
    async function batchRunUsage(): Promise<typeof usage> {
      let batchSpec: RunSpec;
      try {
        batchSpec = batchGenerationSpec(spec, loaded.benchmark);
      } catch {
        return usage;
      }
      return batchSpec.likertMode === spec.likertMode ? usage : usageOf(await planRun(loaded, batchSpec, provider, meta));
    }
    out.push({
      benchmark: loaded.benchmark.id,
      model: provider.id,
      tasks: plan.tasks.length,
      n: plan.manifest.n,
      items: plan.items.length,
      likert_mode: plan.manifest.likert_mode,
      ...(plan.manifest.protocol ? { protocol: plan.manifest.protocol } : {}),
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      cost_usd: cost.usd,
      ...(cost.reason ? { cost_reason: cost.reason } : {}),
      ...(price ? { batch_cost_usd: batch ? costAt(batch, batchUsage) : null } : {}),
    });
    await provider.close?.();
  }
  return out;
}

/** Why a dry run has no cost for a billed provider. */
function unpriced(provider: { kind: string; model: string; id: string }): string {
  return isTablePriced(provider)
    ? `no price for model "${provider.model}" in the price table (add it with a price file)`
    : `no price for "${provider.model}": the shipped table does not price ${provider.id} (a deployment, endpoint or self-hosted server); give one with --prices or --assume-price`;
}
