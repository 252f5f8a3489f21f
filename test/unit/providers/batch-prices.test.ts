import { describe, expect, it } from 'vitest';
import { batchPriceOf, shippedPriceTable } from '#providers/prices.ts';

describe('batch prices in the price table', () => {
  it('gives every shipped batch price as half of its on-demand price, each entry naming its source', () => {
    const batched = Object.entries(shippedPriceTable().models).filter(([, p]) => batchPriceOf(p));
    expect(batched.length).toBeGreaterThan(20);
    for (const [model, p] of batched) {
      expect(p.batch_input_per_mtok, model).toBeCloseTo(p.input_per_mtok / 2, 9);
      expect(p.batch_output_per_mtok, model).toBeCloseTo(p.output_per_mtok / 2, 9);
      expect(p.source, model).toMatch(/[Bb]atch/);
    }
  });

  it('has no batch price for an entry that lacks either half (billed on demand instead)', () => {
    expect(batchPriceOf({ input_per_mtok: 1, output_per_mtok: 2, batch_input_per_mtok: 0.5 })).toBeUndefined();
    expect(batchPriceOf({ input_per_mtok: 1, output_per_mtok: 2, batch_input_per_mtok: 0.5, batch_output_per_mtok: 1 })).toMatchObject({
      input_per_mtok: 0.5,
      output_per_mtok: 1,
    });
  });
});
