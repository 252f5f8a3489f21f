// Whose price a run bills at: the user's (--prices, --assume-price) always first; the shipped
// table only for providers whose model ids it names (an Azure deployment or a vLLM server's
// model called gpt-4o-mini is not OpenAI's model); a planned run's recorded price, never
// resolved again by a worker.
import { describe, expect, it } from 'vitest';
import { InputError } from '#core/errors.ts';
import type { Manifest } from '#core/run/manifest.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import { planPrice, runCostOf } from '#app/shared/cost-projection.ts';
import { shippedPriceTable } from '#providers/index.ts';

const table = shippedPriceTable();
const shipped = table.models['gpt-4o-mini'];
const assumed = { input_per_mtok: 7, output_per_mtok: 9 };
const usage = { promptTokens: 1_000_000, completionTokens: 1_000_000 };
const OPENAI = { kind: 'openai', model: 'gpt-4o-mini', id: 'openai:https://api.openai.com/v1#gpt-4o-mini' };

describe('the price a run bills at', () => {
  it('takes --assume-price over the shipped table', () => {
    expect(shipped).toBeDefined();
    expect(planPrice(table, OPENAI, null, { assumed })).toEqual(assumed);
  });

  it('takes a --prices entry over --assume-price and the shipped table', () => {
    const own = { input_per_mtok: 1, output_per_mtok: 2 };
    expect(planPrice(table, OPENAI, null, { models: { 'gpt-4o-mini': own }, assumed })).toEqual(own);
  });

  it.each([['https://api.openai.com/v1'], ['https://API.openai.com/v1/']])('prices an openai: model at OpenAI’s API (%s) from the shipped table', (base) => {
    expect(planPrice(table, { ...OPENAI, id: `openai:${base}#gpt-4o-mini` }, 1, {})).toEqual(shipped);
  });

  it.each([
    ['azure', 'azure:https://r.openai.azure.com#gpt-4o-mini'],
    ['sagemaker', 'sagemaker:gpt-4o-mini'],
    ['openai', 'openai:http://127.0.0.1:8000/v1#gpt-4o-mini'],
    ['openai', 'openai:https://vllm.example.internal/v1#gpt-4o-mini'],
    ['openai', 'openai:https://api.openai.com.proxy.example/v1#gpt-4o-mini'],
    ['openai', 'openai:http://api.openai.com/v1#gpt-4o-mini'],
  ])('does not give a %s model named like an OpenAI model OpenAI’s price (%s)', (kind, id) => {
    const provider = { kind, model: 'gpt-4o-mini', id };
    expect(planPrice(table, provider, null, {})).toBeUndefined();
    expect(() => planPrice(table, provider, 1, {})).toThrow(InputError);
    expect(() => planPrice(table, provider, 1, {})).toThrow(
      /no price of its own.*not a deployment, an endpoint or a self-hosted server.*--prices.*--assume-price/,
    );
    expect(planPrice(table, provider, 1, { assumed })).toEqual(assumed);
  });

  it("applies a --prices file's premiums to a profile id of its own entry", () => {
    const price = planPrice(table, { kind: 'bedrock', model: 'eu.my.model-v1:0', id: 'bedrock:eu.my.model-v1:0' }, null, {
      models: { 'my.model-v1:0': { input_per_mtok: 2, output_per_mtok: 4 } },
      premiums: [{ model: '^my\\.model', factor: 1.5, except_prefixes: ['global.'], source: 'ours' }],
    });
    expect(price).toMatchObject({ input_per_mtok: 3, output_per_mtok: 6 });
  });
});

describe("a worker's cost function", () => {
  const manifest = (extra: Partial<Manifest>): Manifest =>
    ({ model: { spec: 'azure:https://r.openai.azure.com#gpt-4o-mini', kind: 'azure', name: 'gpt-4o-mini' }, ...extra }) as Manifest;

  it('bills at the price the plan recorded, not at one it resolves again', () => {
    const recorded = { input_per_mtok: 0.25, output_per_mtok: 0.25, batch_input_per_mtok: 0.1, batch_output_per_mtok: 0.1 };
    expect(runCostOf(table, manifest({ price: recorded, assumed_price: assumed }), 1)?.(usage)).toBeCloseTo(0.5);
    expect(runCostOf(table, manifest({ price: recorded, generation: 'batch' }), 1)?.(usage)).toBeCloseTo(0.2);
  });

  it('refuses a capped azure run of a manifest without prices (no OpenAI price for the deployment)', () => {
    expect(() => runCostOf(table, manifest({}), 1)).toThrow(/--assume-price/);
  });

  it('refuses a capped run of a self-hosted openai: server from a manifest without prices, and prices one at OpenAI’s API', () => {
    const at = (spec: string) => ({ model: { spec, kind: 'openai', name: 'gpt-4o-mini' } }) as Manifest;
    expect(() => runCostOf(table, at('openai:http://10.0.0.5:8000/v1#gpt-4o-mini'), 1)).toThrow(/--assume-price/);
    expect(runCostOf(table, at('openai:https://api.openai.com/v1#gpt-4o-mini'), 1)?.(usage)).toBeCloseTo(
      (shipped?.input_per_mtok ?? 0) + (shipped?.output_per_mtok ?? 0),
    );
  });
});

describe('a remote run request', () => {
  it('carries batch prices and premiums of a --prices file', () => {
    const spec = parseRunSpec({
      benchmark: 'sample/abricot',
      model: 'reference',
      prices: {
        models: { m: { input_per_mtok: 1, output_per_mtok: 2, batch_input_per_mtok: 0.5, batch_output_per_mtok: 1 } },
        premiums: [{ model: '^m', factor: 1.1, source: 'x' }],
      },
    });
    expect(spec.prices?.models.m?.batch_output_per_mtok).toBe(1);
    expect(spec.prices?.premiums).toEqual([{ model: '^m', factor: 1.1, except_prefixes: [], source: 'x' }]);
  });

  it('refuses a premium whose model is not a regular expression, naming the field', () => {
    expect(() =>
      parseRunSpec({ benchmark: 'sample/abricot', model: 'reference', prices: { models: {}, premiums: [{ model: '(', factor: 1.1, source: 'x' }] } }),
    ).toThrow(/prices\.premiums\.0\.model/);
  });
});
