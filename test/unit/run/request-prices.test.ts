// A remote run's own prices (`remote run --assume-price/--prices`): validated by the shared run
// schema, and used by the cost function every cloud worker builds from the manifest.
import { describe, expect, it } from 'vitest';
import { InputError } from '#core/errors.ts';
import type { Manifest } from '#core/run/manifest.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import { runCostOf } from '#app/shared/cost-projection.ts';
import { shippedPriceTable } from '#providers/index.ts';

const manifest = (extra: Partial<Manifest>): Manifest =>
  ({ model: { spec: 'openai:http://127.0.0.1:1/v1#m', kind: 'openai', name: 'm' }, ...extra }) as Manifest;

describe('a run request with prices', () => {
  it('accepts an assumed price and price overrides', () => {
    const spec = parseRunSpec({
      benchmark: 'sample/abricot',
      model: 'openai:http://127.0.0.1:1/v1#m',
      assumePrice: { input_per_mtok: 0.5, output_per_mtok: 1.5 },
      prices: { models: { m: { input_per_mtok: 1, output_per_mtok: 2 } } },
    });
    expect(spec.assumePrice).toEqual({ input_per_mtok: 0.5, output_per_mtok: 1.5 });
    expect(spec.prices?.models.m).toEqual({ input_per_mtok: 1, output_per_mtok: 2 });
  });

  it.each([
    [{ assumePrice: { input_per_mtok: -1, output_per_mtok: 1 } }, 'assumePrice.input_per_mtok'],
    [{ assumePrice: { input_per_mtok: 1 } }, 'assumePrice.output_per_mtok'],
    [{ prices: { models: { m: { input_per_mtok: 1, output_per_mtok: 1, extra: 1 } } } }, 'prices.models.m'],
  ])('refuses a bad price, naming the field (%j)', (extra, field) => {
    let error: unknown;
    try {
      parseRunSpec({ benchmark: 'sample/abricot', model: 'reference', ...extra }, 'request body');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toContain(field);
  });
});

describe("the cost of a cloud run's calls", () => {
  const usage = { promptTokens: 1_000_000, completionTokens: 1_000_000 };

  it("bills at the manifest's assumed price when the table lacks the model", () => {
    expect(runCostOf(shippedPriceTable(), manifest({ assumed_price: { input_per_mtok: 0.5, output_per_mtok: 1.5 } }), 1)?.(usage)).toBeCloseTo(2);
  });

  it("bills at the manifest's price overrides, over the shipped table and over an assumed price", () => {
    const m = manifest({ price_overrides: { m: { input_per_mtok: 3, output_per_mtok: 4 } }, assumed_price: { input_per_mtok: 0.5, output_per_mtok: 1.5 } });
    expect(runCostOf(shippedPriceTable(), m, 1)?.(usage)).toBeCloseTo(7);
  });

  it('refuses a cap on a model with neither', () => {
    expect(() => runCostOf(shippedPriceTable(), manifest({}), 1)).toThrow(/--assume-price/);
  });
});
