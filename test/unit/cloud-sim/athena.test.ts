import { describe, expect, it } from 'vitest';
import { AthenaConcurrency } from '../../../sim/cloud/limits/athena.ts';

describe('Athena active DML queries', () => {
  it('refuses the 21st concurrent query and takes one again when a query ends', () => {
    const athena = new AthenaConcurrency();
    const ends = Array.from({ length: 20 }, () => athena.start());
    expect(() => athena.start()).toThrow(expect.objectContaining({ name: 'TooManyRequestsException' }));
    ends[0]?.();
    ends[0]?.();
    expect(() => athena.start()).not.toThrow();
    expect(() => athena.start()).toThrow();
  });
});
