import { describe, expect, it } from 'vitest';
import { ConcurrencyPools } from '../../../sim/cloud/limits/concurrency.ts';

describe('account and reserved concurrency', () => {
  it('throttles an unreserved function once the unreserved pool is used up', () => {
    const pools = new ConcurrencyPools(1000);
    pools.reserve('runner', 300);
    for (let i = 0; i < 700; i++) expect(pools.tryAcquire('judge')).toBe(true);
    expect(pools.tryAcquire('generate')).toBe(false);
    pools.release('judge');
    expect(pools.tryAcquire('generate')).toBe(true);
  });

  it('keeps a reserved function within its reservation, whatever the others use', () => {
    const pools = new ConcurrencyPools(1000);
    pools.reserve('runner', 2);
    for (let i = 0; i < 800; i++) pools.tryAcquire('judge');
    expect(pools.tryAcquire('runner')).toBe(true);
    expect(pools.tryAcquire('runner')).toBe(true);
    expect(pools.tryAcquire('runner')).toBe(false);
  });

  it('refuses a reservation that leaves fewer than 100 unreserved', () => {
    const pools = new ConcurrencyPools(1000);
    pools.reserve('a', 850);
    expect(() => pools.reserve('b', 51)).toThrow(/fewer than 100 unreserved/);
  });
});
