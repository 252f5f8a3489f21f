import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../infra/config.ts';
import { BENCHMARKS } from '../../layers/core/benchmarks/registry.ts';

describe('parseConfig', () => {
  it('applies defaults and reads the sweep from SSM when no nightly context is given', () => {
    const config = parseConfig({});
    // arm64 by default: Lambda's cheaper GB-second, and every image's toolchain exists for it.
    expect(config.architecture).toBe('arm64');
    // No Fargate lane by default: its interface endpoints bill by the hour (docs/aws.md "Idle cost").
    expect(config.fargateLane).toBe(false);
    expect(config.nightly).toEqual({ kind: 'ssm', parameterName: '/polyeval/nightly' });
  });

  it("reads a second stack's sweep from its own SSM parameter, never the default stack's", () => {
    expect(parseConfig({ stackName: 'Polyeval' }).nightly).toEqual({ kind: 'ssm', parameterName: '/polyeval/nightly' });
    expect(parseConfig({ stackName: 'Polyeval-Staging' }).nightly).toEqual({ kind: 'ssm', parameterName: '/polyeval/Polyeval-Staging/nightly' });
    expect(parseConfig({ stackName: 'Polyeval-Staging', nightlyParameter: '/team/sweep' }).nightly).toEqual({ kind: 'ssm', parameterName: '/team/sweep' });
    expect(() => parseConfig({ stackName: 'bad name' })).toThrow(ConfigError);
  });

  it('decodes values given as strings on the cdk command line', () => {
    const config = parseConfig({
      generateMaxConcurrency: '12',
      fargateLane: 'true',
      nightly: '{"benchmarks":["abricot"],"models":["reference"],"params":{"n":1}}',
    });
    expect(config.generateMaxConcurrency).toBe(12);
    expect(config.fargateLane).toBe(true);
    expect(config.nightly).toEqual({ kind: 'inline', sweep: { benchmarks: ['abricot'], models: ['reference'], params: { n: 1 } } });
  });

  it('derives the benchmark partitions from the registry, extra ids appended once', () => {
    expect(parseConfig({}).benchmarks).toEqual(BENCHMARKS.map((b) => b.id));
    expect(parseConfig({}).benchmarks).toContain('mxeval');
    expect(parseConfig({ benchmarks: '["my-fork","rocode"]' }).benchmarks).toEqual([...BENCHMARKS.map((b) => b.id), 'my-fork']);
  });

  it("fits generate's concurrency into the account: the judges' maxConcurrency shrinks to what is left, a larger quota widens it", () => {
    expect(parseConfig({}).concurrency).toMatchObject({ generate: 5, plan: 10, aggregate: 10, judge: 92 });
    expect(parseConfig({ generateMaxConcurrency: '300' }).concurrency.judge).toBe(33);
    expect(parseConfig({ generateMaxConcurrency: '460', accountConcurrency: '2000', fargateLane: 'true' }).concurrency.judge).toBe(92);
    // Without the Fargate lane nothing else holds the runner: a reservation of 5 is the judge's 5.
    expect(parseConfig({ runnerReservedConcurrency: '5', fargateLane: 'false' }).concurrency.judge).toBe(5);
  });

  it('takes one alarm e-mail address, trimmed, and none by default', () => {
    expect(parseConfig({}).alarmEmail).toBeUndefined();
    expect(parseConfig({ alarmEmail: ' ops@example.com ' }).alarmEmail).toBe('ops@example.com');
  });

  it('takes the hosts stored keys may go to as -c providerKeyHosts gives them, normalised, and none by default', () => {
    expect(parseConfig({}).providerKeyHosts).toBe('');
    expect(parseConfig({ providerKeyHosts: ' OPENAI_API_KEY=LLM.internal|*.corp.example , MY_KEY=gw.example' }).providerKeyHosts).toBe(
      'OPENAI_API_KEY=llm.internal|*.corp.example,MY_KEY=gw.example',
    );
    expect(() => parseConfig({ providerKeyHosts: 'OPENAI_API_KEY=https://llm.internal' })).toThrow(/context "providerKeyHosts".*not a host name/);
  });

  it.each([
    [{ benchmarks: ['sample'] }, 'benchmarks'],
    [{ benchmarks: ['sample/rocode'] }, 'benchmarks'],
    [{ benchmarks: ['a/b'] }, 'benchmarks'],
    [{ alarmEmail: 'not-an-address' }, 'alarmEmail'],
    [{ alarmEmail: 'a@example.com,b@example.com' }, 'alarmEmail'],
    [{ generateMaxConcurrency: 1 }, 'generateMaxConcurrency'],
    // The account's unreserved pool cannot hold generate beside plan, aggregate and five judges of at least 2 each.
    [{ generateMaxConcurrency: 460 }, 'generateMaxConcurrency'],
    // The judge mapping's minimum of 2 and the Fargate lane's 4 × 2 do not fit in 9 (nor in 5).
    [{ runnerReservedConcurrency: 9, fargateLane: true }, 'runnerReservedConcurrency'],
    [{ runnerReservedConcurrency: 5, fargateLane: true }, 'runnerReservedConcurrency'],
    [{ runnerReservedConcurrency: 1 }, 'runnerReservedConcurrency'],
    // Five runners at 180 and the batch stage's 1 leave 99 unreserved; Lambda requires 100.
    [{ runnerReservedConcurrency: 180 }, 'runnerReservedConcurrency'],
    [{ accountConcurrency: 0 }, 'accountConcurrency'],
    [{ architecture: 'sparc' }, 'architecture'],
    [{ logRetentionDays: 31 }, 'logRetentionDays'],
    [{ nightly: { benchmarks: [], models: ['m'] } }, 'nightly.benchmarks'],
    [{ nightly: { benchmarks: ['b'], models: ['m'] }, nightlyParameter: '/p' }, 'nightly'],
  ])('rejects %j naming the context key', (context, key) => {
    expect(() => parseConfig(context)).toThrow(ConfigError);
    expect(() => parseConfig(context)).toThrow(`context "${key}"`);
  });
});

describe('the inline nightly sweep', () => {
  it.each([
    [{ benchmarks: ['rocode'], models: ['reference'], params: { temperature: 'hot' } }, 'nightly.params.temperature'],
    [{ benchmarks: ['rocode'], models: ['reference'], params: { top_p: 7 } }, 'nightly.params.topP'],
    // A rule between options (docs/cli.md): --shots does not apply to RoCode's protocol.
    [{ benchmarks: ['abricot', 'rocode'], models: ['reference'], params: { shots: 3 } }, 'nightly.params.shots'],
    [{ benchmarks: ['rocode'], models: ['reference'], extra: 1 }, 'nightly'],
    [{ benchmarks: ['rocode'], models: [''] }, 'nightly.models.0'],
    [{ benchmarks: ['rocode'], models: ['reference'], batch: true }, 'nightly.batch'],
    [{ benchmarks: ['rocode'], models: ['reference'], batch: ['bedrock:anthropic.claude-3-haiku-20240307-v1:0'] }, 'nightly.batch'],
  ])('is refused at synth as the nightly function would refuse it: %j', (nightly, key) => {
    expect(() => parseConfig({ nightly })).toThrow(ConfigError);
    expect(() => parseConfig({ nightly })).toThrow(`context "${key}"`);
  });

  it('keeps the sweep it accepts as written, parameters under their given names', () => {
    const nightly = { benchmarks: ['rocode', 'abricot'], models: ['reference'], params: { n: 1, top_p: 0.95 }, split: 'test' };
    expect(parseConfig({ nightly }).nightly).toEqual({ kind: 'inline', sweep: nightly });
  });
});
