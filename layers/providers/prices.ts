/**
 * The price table: USD per million input/output tokens per model, and executor compute
 * prices (AWS's list prices, aws-prices.ts). The shipped `prices.json` is overridable by a user JSON file of the same shape
 * (entries merge over the shipped ones), so a new model or region needs no release.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { InputError } from '#core/errors.ts';
import type { TokenUsage } from '#core/types.ts';
import shipped from './prices.json' with { type: 'json' };
import { TABLE_COMPUTE_PRICES } from './aws-prices.ts';

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD');

/** A price with the days it is in force (both inclusive); either end open. */
const periodSchema = z.strictObject({
  valid_from: isoDate.optional(),
  valid_until: isoDate.optional(),
  input_per_mtok: z.number().nonnegative(),
  output_per_mtok: z.number().nonnegative(),
  batch_input_per_mtok: z.number().nonnegative().optional(),
  batch_output_per_mtok: z.number().nonnegative().optional(),
  note: z.string().optional(),
  source: z.string().optional(),
});

const modelPriceSchema = z.strictObject({
  /** First day this price is in force (YYYY-MM-DD); absent: always was. */
  valid_from: isoDate.optional(),
  /** Last day this price is in force (an introductory price's end); absent: until further notice. */
  valid_until: isoDate.optional(),
  /** The prices that follow it, each with its own days (e.g. the list price after an introductory one). */
  later: z.array(periodSchema).optional(),
  input_per_mtok: z.number().nonnegative(),
  output_per_mtok: z.number().nonnegative(),
  /** The provider's batch price (OpenAI Batch, Anthropic Message Batches, Bedrock batch inference), where it documents one. */
  batch_input_per_mtok: z.number().nonnegative().optional(),
  batch_output_per_mtok: z.number().nonnegative().optional(),
  note: z.string().optional(),
  /** When the figure was read, e.g. 2026-11. */
  as_of: z.string().optional(),
  /** Where it was read (and whether it could be verified). */
  source: z.string().optional(),
});

const computeSchema = z.strictObject({
  lambda_gb_second: z.number().nonnegative(),
  lambda_arm_gb_second: z.number().nonnegative(),
  lambda_per_million_requests: z.number().nonnegative(),
  fargate_vcpu_hour: z.number().nonnegative(),
  fargate_gb_hour: z.number().nonnegative(),
});

/**
 * A surcharge on some ids of a model: `factor` × the table's price for the ids `model`
 * (a regular expression, searched in the id without its profile prefix) matches, unless the
 * id starts with one of `except_prefixes`.
 */
const premiumSchema = z.strictObject({
  model: z.string(),
  factor: z.number().min(1),
  except_prefixes: z.array(z.string()).default([]),
  source: z.string(),
});

const tableSchema = z.strictObject({
  source: z.string(),
  as_of: z.string(),
  currency: z.literal('USD'),
  models: z.record(z.string(), modelPriceSchema),
  premiums: z.array(premiumSchema).default([]),
  compute: computeSchema,
});

/** A user override: every part optional. */
const overrideSchema = z.strictObject({
  source: z.string().optional(),
  as_of: z.string().optional(),
  currency: z.literal('USD').optional(),
  models: z.record(z.string(), modelPriceSchema).optional(),
  premiums: z.array(premiumSchema).optional(),
  compute: computeSchema.partial().optional(),
});

export type PriceTable = z.infer<typeof tableSchema>;
export type ModelPrice = z.infer<typeof modelPriceSchema>;

/** Cross-region inference-profile prefixes; a profile id is priced as its base model. */
const PROFILE_PREFIX = /^(us|eu|apac|us-gov|ca|jp|au|global)\./;

/** The shipped table: prices.json's models and premiums, and AWS's compute prices (aws-prices.ts). */
export function shippedPriceTable(): PriceTable {
  return tableSchema.parse({ ...shipped, compute: TABLE_COMPUTE_PRICES });
}

/**
 * The shipped table, with the user's JSON file merged over it when `path` is given.
 * A file that is missing, not JSON, or of the wrong shape is an InputError naming it and the field.
 *
 * @example
 * const table = await loadPriceTable('my-prices.json');
 * estimateCost(table, 'us.anthropic.claude-3-5-haiku-20241022-v1:0', { promptTokens: 1e6, completionTokens: 0 }); // { usd: 0.8 }
 */
export async function loadPriceTable(path?: string): Promise<PriceTable> {
  const base = shippedPriceTable();
  if (path === undefined) return base;
  const o = await readOverride(path);
  return {
    source: o.source ?? `${base.source}; overridden by ${path}`,
    as_of: o.as_of ?? base.as_of,
    currency: 'USD',
    models: { ...base.models, ...o.models },
    premiums: o.premiums ?? base.premiums,
    compute: { ...base.compute, ...o.compute },
  };
}

async function readOverride(path: string): Promise<z.infer<typeof overrideSchema>> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch (err) {
    throw new InputError(`cannot read price table: ${(err as Error).message}`, { file: path }, { cause: err });
  }
  const parsed = overrideSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InputError(issue?.message ?? 'invalid price table', { file: path, field: issue?.path.join('.') || '(root)' });
  }
  return parsed.data;
}

/**
 * The price of a model: exact id first, then the base id of an inference profile, with the
 * table's premium for that kind of id (Claude Sonnet 4.5 and later on Bedrock: regional and
 * geographic endpoints cost 10% more than `global.`).
 */
export function findModelPrice(table: PriceTable, model: string, on?: string): ModelPrice | undefined {
  const exact = table.models[model];
  if (exact) return priceInForce(exact, model, on);
  const base = model.replace(PROFILE_PREFIX, '');
  const listed = table.models[base];
  if (!listed) return undefined;
  const price = priceInForce(listed, base, on);
  const premium = table.premiums.find((p) => new RegExp(p.model).test(base) && !p.except_prefixes.some((prefix) => model.startsWith(prefix)));
  if (!premium) return price;
  // The premium is on the endpoint, whatever the mode: a batch price carries it too.
  const times = (usd: number | undefined): number | undefined => (usd === undefined ? undefined : usd * premium.factor);
  const batchInput = times(price.batch_input_per_mtok);
  const batchOutput = times(price.batch_output_per_mtok);
  return {
    ...price,
    input_per_mtok: price.input_per_mtok * premium.factor,
    output_per_mtok: price.output_per_mtok * premium.factor,
    ...(batchInput !== undefined ? { batch_input_per_mtok: batchInput } : {}),
    ...(batchOutput !== undefined ? { batch_output_per_mtok: batchOutput } : {}),
    note: `${model}: ×${premium.factor} of ${base} (${premium.source})${price.note ? `; ${price.note}` : ''}`,
  };
}

/**
 * The price of an entry in force on day `on` (YYYY-MM-DD): the entry's own days, else the
 * `later` period covering `on`; past every known period, the last one, with a note saying the
 * table has no price for that day. Without `on` (or days), the entry as it is.
 *
 * @example
 * priceInForce(table.models['gemini-3.8-flash'], 'gemini-3.8-flash', '2027-01-02').input_per_mtok; // 1.5 (the introductory 0.75 ended 2026-12-31)
 */
export function priceInForce(price: ModelPrice, model: string, on: string | undefined): ModelPrice {
  const { later, ...own } = price;
  if (on === undefined || (later === undefined && own.valid_until === undefined && own.valid_from === undefined)) return own;
  const periods: ModelPrice[] = [own, ...(later ?? []).map((p) => ({ ...p, ...((p.source ?? own.source) ? { source: p.source ?? own.source } : {}) }))];
  const covers = (p: ModelPrice): boolean => (p.valid_from === undefined || p.valid_from <= on) && (p.valid_until === undefined || on <= p.valid_until);
  const found = periods.find(covers);
  if (found) return found;
  const last = periods.reduce((a, b) => ((b.valid_from ?? '') > (a.valid_from ?? '') ? b : a));
  const warning =
    last.valid_until !== undefined && on > last.valid_until
      ? `the table's last known price of ${model} ended ${last.valid_until}; ${on} is past it, and the estimate uses it anyway — check the provider's price and give it with --prices`
      : `the table has no price of ${model} in force on ${on} (its first starts ${last.valid_from ?? '?'}); the estimate uses the nearest — check it and give it with --prices`;
  return { ...last, note: last.note ? `${last.note}; ${warning}` : warning };
}

/**
 * Estimated USD cost of `usage` on `model`; `usd` is null (with the reason) when the table
 * has no price for it — an unknown cost is never reported as zero.
 */
export function estimateCost(table: PriceTable, model: string, usage: TokenUsage): { usd: number | null; reason?: string } {
  const price = findModelPrice(table, model);
  if (!price) return { usd: null, reason: `no price for model "${model}" in the price table (add it with a price file)` };
  return { usd: costAt(price, usage) };
}

/**
 * The price `--assume-price <input>,<output>` gives (USD per million input and output tokens).
 * @throws InputError naming the flag when the value is not two non-negative numbers.
 */
export function parseAssumedPrice(text: string): ModelPrice {
  const parts = text.split(',').map((p) => p.trim());
  const [input, output] = parts.map(Number);
  if (parts.length !== 2 || input === undefined || output === undefined || !Number.isFinite(input) || !Number.isFinite(output) || input < 0 || output < 0) {
    throw new InputError(`--assume-price must be "<input>,<output>" in USD per million tokens, e.g. 0.5,1.5; got ${JSON.stringify(text)}`, {
      field: 'assumePrice',
    });
  }
  return { input_per_mtok: input, output_per_mtok: output, source: 'assumed with --assume-price' };
}

/**
 * What the user priced for a run: the models and premiums of a `--prices` file (or a remote
 * run's request), and `--assume-price`. Both always win over the shipped table.
 */
export interface UserPrices {
  models?: Record<string, ModelPrice>;
  premiums?: PriceTable['premiums'];
  assumed?: ModelPrice | null;
}

/**
 * The user's price file (`--prices`), validated, with `--assume-price`; empty without either.
 * @throws InputError naming the file and the field.
 */
export async function loadUserPrices(path: string | undefined, assumed?: ModelPrice | null): Promise<UserPrices> {
  const file = path === undefined ? {} : await readOverride(path);
  return { ...(file.models ? { models: file.models } : {}), ...(file.premiums ? { premiums: file.premiums } : {}), assumed: assumed ?? null };
}

/**
 * The price a run bills `model` at. The user's prices first, always: a `--prices` entry for the
 * id (or for its base id, with the file's premiums, else the shipped ones), then
 * `--assume-price`. Then the shipped table, but only when it names this provider's models
 * (`tablePriced`): an Azure deployment, a SageMaker endpoint or a vLLM server's model called
 * `gpt-4o-mini` is not OpenAI's model and its price is not OpenAI's.
 */
export function resolveModelPrice(table: PriceTable, model: string, user: UserPrices, tablePriced: boolean, on?: string): ModelPrice | undefined {
  if (user.models && Object.keys(user.models).length > 0) {
    const own = findModelPrice({ ...table, models: user.models, premiums: user.premiums ?? table.premiums }, model, on);
    if (own) return own;
  }
  if (user.assumed) return user.assumed;
  return tablePriced ? findModelPrice(user.premiums ? { ...table, premiums: user.premiums } : table, model, on) : undefined;
}

/**
 * The price a run bills `model` at ({@link resolveModelPrice}). With a cost cap and none, the
 * run is refused before any call — an unpriced model would make the cap a no-op.
 * @throws InputError naming --prices and --assume-price.
 */
export function priceForRun(
  table: PriceTable,
  model: string,
  opts: { capUsd: number | null; user: UserPrices; tablePriced: boolean; on?: string | undefined },
): ModelPrice | undefined {
  const price = resolveModelPrice(table, model, opts.user, opts.tablePriced, opts.on);
  if (!price && opts.capUsd !== null) {
    const why = opts.tablePriced
      ? 'it has no price in the price table'
      : 'it has no price of its own (the shipped table prices OpenAI’s, Anthropic’s, Gemini’s and Bedrock’s APIs, not a deployment, an endpoint or a self-hosted server such as Ollama)';
    throw new InputError(
      `--max-cost ${opts.capUsd} cannot bound the spend of model "${model}": ${why}; give one with --prices <file.json> or --assume-price <input>,<output> (USD per million tokens)`,
      { field: 'maxCost' },
    );
  }
  return price;
}

/** USD of `usage` at `price`. */
export function costAt(price: ModelPrice, usage: TokenUsage): number {
  return (usage.promptTokens * price.input_per_mtok + usage.completionTokens * price.output_per_mtok) / 1_000_000;
}

/** Executor time spent, by kind. */
export interface ComputeUsage {
  lambdaGbSeconds?: number;
  lambdaArmGbSeconds?: number;
  lambdaRequests?: number;
  fargateVcpuHours?: number;
  fargateGbHours?: number;
}

/** Estimated USD cost of executor time. */
export function estimateComputeCost(table: PriceTable, usage: ComputeUsage): number {
  const c = table.compute;
  return (
    (usage.lambdaGbSeconds ?? 0) * c.lambda_gb_second +
    (usage.lambdaArmGbSeconds ?? 0) * c.lambda_arm_gb_second +
    ((usage.lambdaRequests ?? 0) / 1_000_000) * c.lambda_per_million_requests +
    (usage.fargateVcpuHours ?? 0) * c.fargate_vcpu_hour +
    (usage.fargateGbHours ?? 0) * c.fargate_gb_hour
  );
}

/**
 * The price of `--batch` calls: the entry's batch price where it has one, else undefined
 * (a batch run is then billed at the on-demand price: its spend errs high, never low).
 */
export function batchPriceOf(price: ModelPrice): ModelPrice | undefined {
  if (price.batch_input_per_mtok === undefined || price.batch_output_per_mtok === undefined) return undefined;
  return { input_per_mtok: price.batch_input_per_mtok, output_per_mtok: price.batch_output_per_mtok, ...(price.source ? { source: price.source } : {}) };
}
