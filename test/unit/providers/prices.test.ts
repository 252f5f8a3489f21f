import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '#core/errors.ts';
import { estimateComputeCost, estimateCost, estimateTokens, loadPriceTable } from '#providers/index.ts';
import { findModelPrice, shippedPriceTable } from '#providers/prices.ts';

async function tempJson(content: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'polyeval-prices-'));
  const path = join(dir, 'prices.json');
  await writeFile(path, content);
  return path;
}

describe('price table', () => {
  it('prices a model per million input and output tokens', async () => {
    const table = await loadPriceTable();
    const haiku = table.models['anthropic.claude-3-haiku-20240307-v1:0'];

    const cost = estimateCost(table, 'anthropic.claude-3-haiku-20240307-v1:0', { promptTokens: 2_000_000, completionTokens: 400_000 });

    expect(haiku).toBeDefined();
    expect(cost.usd).toBeCloseTo(2 * (haiku?.input_per_mtok ?? NaN) + 0.4 * (haiku?.output_per_mtok ?? NaN), 10);
  });

  it.each([['us.'], ['eu.'], ['apac.']])('prices a %s inference profile as its base model', async (prefix) => {
    const table = await loadPriceTable();
    const usage = { promptTokens: 1000, completionTokens: 1000 };

    expect(estimateCost(table, `${prefix}amazon.nova-lite-v1:0`, usage)).toEqual(estimateCost(table, 'amazon.nova-lite-v1:0', usage));
    expect(estimateCost(table, `${prefix}amazon.nova-lite-v1:0`, usage).usd).toBeGreaterThan(0);
  });

  it('reports an unknown model as an absent cost with its reason, never zero', async () => {
    const cost = estimateCost(await loadPriceTable(), 'qwen-7b', { promptTokens: 10, completionTokens: 10 });

    expect(cost.usd).toBeNull();
    expect(cost.reason).toMatch(/qwen-7b/);
  });

  it('merges a user file over the shipped table', async () => {
    const path = await tempJson(
      JSON.stringify({ models: { 'qwen-7b': { input_per_mtok: 0.1, output_per_mtok: 0.3 } }, compute: { lambda_gb_second: 0.00002 } }),
    );

    const table = await loadPriceTable(path);

    expect(estimateCost(table, 'qwen-7b', { promptTokens: 1_000_000, completionTokens: 1_000_000 }).usd).toBeCloseTo(0.4, 10);
    expect(table.models['amazon.nova-micro-v1:0']).toBeDefined();
    expect(estimateComputeCost(table, { lambdaGbSeconds: 1000 })).toBeCloseTo(0.02, 10);
    expect(table.source).toContain(path);
  });

  it('rejects a user file with a bad field, naming file and field', async () => {
    const path = await tempJson(JSON.stringify({ models: { m: { input_per_mtok: -1, output_per_mtok: 1 } } }));

    const err = await loadPriceTable(path).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toContain(path);
    expect((err as InputError).location.field).toBe('models.m.input_per_mtok');
  });

  it('rejects a user file that is not JSON, naming it', async () => {
    const path = await tempJson('{ nope');
    await expect(loadPriceTable(path)).rejects.toThrow(path);
  });

  it('prices executor time by Fargate vCPU and GB hours', async () => {
    const table = await loadPriceTable();
    expect(estimateComputeCost(table, { fargateVcpuHours: 2, fargateGbHours: 4 })).toBeCloseTo(
      2 * table.compute.fargate_vcpu_hour + 4 * table.compute.fargate_gb_hour,
      12,
    );
  });
});

describe('estimateTokens', () => {
  it.each([
    ['', 0],
    ['abc', 1],
    ['abcd', 1],
    ['abcde', 2],
  ])('estimates %j as %i tokens (chars / 4, rounded up)', (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });
});

describe('inference-profile premium (defect 9)', () => {
  const table = shippedPriceTable();
  const mtok = { promptTokens: 1_000_000, completionTokens: 1_000_000 };

  it('prices a regional or geographic Claude Sonnet 4.5 profile 10% above the global one', () => {
    const global = estimateCost(table, 'global.anthropic.claude-sonnet-4-5-20250929-v1:0', mtok).usd ?? NaN;
    const us = estimateCost(table, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', mtok).usd ?? NaN;
    expect(global).toBeCloseTo(3 + 15, 10);
    expect(us).toBeCloseTo(1.1 * global, 10);
    expect(findModelPrice(table, 'eu.anthropic.claude-haiku-4-5-20251001-v1:0')?.note).toMatch(/×1.1/);
  });

  it('leaves models before Sonnet 4.5 at the base price', () => {
    expect(estimateCost(table, 'us.anthropic.claude-3-5-haiku-20241022-v1:0', { promptTokens: 1_000_000, completionTokens: 0 }).usd).toBeCloseTo(0.8, 10);
  });
});

describe('prices with dates and premiums on batch prices (issue 33, point 5)', () => {
  const table = shippedPriceTable();

  it('bills gemini-3.8-flash its introductory price through 2026-12-31 and the list price from 2027-01-01', () => {
    expect(findModelPrice(table, 'gemini-3.8-flash', '2026-12-31')).toMatchObject({ input_per_mtok: 0.75, output_per_mtok: 3.75 });
    expect(findModelPrice(table, 'gemini-3.8-flash', '2027-01-01')).toMatchObject({ input_per_mtok: 1.5, output_per_mtok: 7.5 });
  });

  it('warns, past the last known price, that the estimate uses it anyway', () => {
    const dated = { ...table, models: { m: { input_per_mtok: 1, output_per_mtok: 2, valid_until: '2026-06-30' } } };

    const price = findModelPrice(dated, 'm', '2026-12-06');

    expect(price).toMatchObject({ input_per_mtok: 1, output_per_mtok: 2 });
    expect(price?.note).toMatch(/the table's last known price of m ended 2026-06-30; 2026-12-06 is past it, and the estimate uses it anyway/);
    expect(findModelPrice(dated, 'm', '2026-06-30')?.note).toBeUndefined();
  });

  it('refuses a price file whose dates are not YYYY-MM-DD, naming the field', async () => {
    const path = await tempJson(JSON.stringify({ models: { m: { input_per_mtok: 1, output_per_mtok: 2, valid_until: '31/12/2026' } } }));
    await expect(loadPriceTable(path)).rejects.toThrow(/models\.m\.valid_until.*must be a date, YYYY-MM-DD|must be a date, YYYY-MM-DD/);
  });

  it('applies the regional-endpoint premium to the batch price too', () => {
    const base = findModelPrice(table, 'anthropic.claude-sonnet-4-5-20250929-v1:0');
    const regional = findModelPrice(table, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0');

    expect(base?.batch_input_per_mtok).toBeDefined();
    expect(regional?.batch_input_per_mtok).toBeCloseTo((base?.batch_input_per_mtok ?? 0) * 1.1, 10);
    expect(regional?.batch_output_per_mtok).toBeCloseTo((base?.batch_output_per_mtok ?? 0) * 1.1, 10);
  });
});

describe('the price a run is planned at', () => {
  it('is the one in force on the run’s day', async () => {
    const { planPrice } = await import('#app/shared/cost-projection.ts');
    const gemini = { kind: 'gemini', model: 'gemini-3.8-flash', id: 'gemini:gemini-3.8-flash' };

    expect(planPrice(shippedPriceTable(), gemini, null, {}, '2026-12-06')?.input_per_mtok).toBe(0.75);
    expect(planPrice(shippedPriceTable(), gemini, null, {}, '2027-03-01')?.input_per_mtok).toBe(1.5);
  });
});
