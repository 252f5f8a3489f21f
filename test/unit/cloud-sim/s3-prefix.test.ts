import { describe, expect, it } from 'vitest';
import { prefixOf, S3_GET_PER_PREFIX_S, S3_PUT_PER_PREFIX_S, S3PrefixRates } from '../../../sim/cloud/limits/s3-prefix.ts';

describe('S3 per-prefix request rates', () => {
  it('answers Slow Down past 3,500 PUTs a second on one prefix, not on another', () => {
    const rates = new S3PrefixRates();
    for (let i = 0; i < S3_PUT_PER_PREFIX_S; i++) rates.request(`runs/r/items/t/${i}.json`, 'put', 0);
    expect(() => rates.request('runs/r/items/t/x.json', 'put', 500)).toThrow(expect.objectContaining({ name: 'SlowDown' }));
    expect(() => rates.request('runs/r/items/u/x.json', 'put', 500)).not.toThrow();
    expect(() => rates.request('runs/r/items/t/x.json', 'put', 1_000)).not.toThrow();
    expect(prefixOf('a/b/c.json')).toBe('a/b/');
  });

  it('keeps the count of a later second when an earlier request is checked after it (invocations end out of time order)', () => {
    const rates = new S3PrefixRates();
    for (let i = 0; i < S3_PUT_PER_PREFIX_S; i++) rates.request(`runs/r/items/t/${i}.json`, 'put', 7_100);
    rates.request('runs/r/items/t/early.json', 'put', 6_900);
    expect(() => rates.request('runs/r/items/t/late.json', 'put', 7_200)).toThrow(expect.objectContaining({ name: 'SlowDown' }));
    // GETs have their own 5,500 a second on the same prefix.
    for (let i = 0; i < S3_GET_PER_PREFIX_S; i++) rates.request(`runs/r/items/t/${i}.json`, 'get', 7_300);
    expect(() => rates.request('runs/r/items/t/0.json', 'get', 7_400)).toThrow(expect.objectContaining({ name: 'SlowDown' }));
  });
});
