import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../infra/config.ts';

describe('parseConfig', () => {
  it('applies defaults and reads the sweep from SSM when no nightly context is given', () => {
    const config = parseConfig({});
    expect(config.architecture).toBe('arm64');
    expect(config.nightly).toEqual({ kind: 'ssm', parameterName: '/polyeval/nightly' });
  });

  it('decodes values given as strings on the cdk command line', () => {
    const config = parseConfig({ generateMaxConcurrency: '12', fargateLane: 'false', nightly: '{"benchmarks":["abricot"],"models":["reference"],"params":{"n":1}}' });
    expect(config.generateMaxConcurrency).toBe(12);
    expect(config.fargateLane).toBe(false);
    expect(config.nightly).toEqual({ kind: 'inline', sweep: { benchmarks: ['abricot'], models: ['reference'], params: { n: 1 } } });
  });

  it.each([
    [{ generateMaxConcurrency: 1 }, 'generateMaxConcurrency'],
    [{ architecture: 'sparc' }, 'architecture'],
    [{ logRetentionDays: 31 }, 'logRetentionDays'],
    [{ nightly: { benchmarks: [], models: ['m'] } }, 'nightly.benchmarks'],
    [{ nightly: { benchmarks: ['b'], models: ['m'] }, nightlyParameter: '/p' }, 'nightly'],
  ])('rejects %j naming the context key', (context, key) => {
    expect(() => parseConfig(context)).toThrow(ConfigError);
    expect(() => parseConfig(context)).toThrow(`context "${key}"`);
  });
});
