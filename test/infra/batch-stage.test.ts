// The batch stage of `remote run --batch` in the synthesized stack: its schedule, the service
// role Bedrock assumes (trusted only by Bedrock for this account's jobs, object access only
// under batch-inference/), the stage's own Bedrock actions and PassRole of that role only,
// and the deployment's quotas carried to the functions that size jobs.
import { beforeAll, describe, expect, it } from 'vitest';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { parseConfig } from '../../infra/config.ts';
import { cdkJsonContext, NO_BUNDLING, synthPolyeval } from './synth.ts';

type Statement = { Action: string | string[]; Resource: unknown; Condition?: Record<string, unknown> };
let template: Template;
let json: { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };

function statementsOf(rolePattern: RegExp): Statement[] {
  return Object.values(json.Resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .filter((p) => (p.Properties['Roles'] as { Ref: string }[]).some((r) => rolePattern.test(r.Ref)))
    .flatMap((p) => (p.Properties['PolicyDocument'] as { Statement: Statement[] }).Statement);
}

beforeAll(() => {
  template = synthPolyeval({
    ...NO_BUNDLING,
    batchQuotas: { minRecordsPerJob: 50, maxJobsInFlightPerModel: 20 },
    batchTimeoutHours: 48,
    providerKeysPath: '/team/llm-keys',
  }).template;
  json = template.toJSON() as typeof json;
}, 300_000);

describe('the batch stage', () => {
  it('runs every 5 minutes with the service role, quotas and timeout in its environment; plan gets the quotas', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
      Target: Match.objectLike({ Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^BatchHandlerFunction'), 'Arn'] } }),
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          BATCH_ROLE_ARN: { 'Fn::GetAtt': [Match.stringLikeRegexp('^BatchBedrockServiceRole'), 'Arn'] },
          BATCH_QUOTAS: '{"minRecordsPerJob":50,"maxJobsInFlightPerModel":20}',
          BATCH_TIMEOUT_HOURS: '48',
        }),
      },
      // One pass at a time: a 10-minute pass outlives the 5-minute tick, and an overlapping pass
      // could submit an Anthropic batch (no lookup by name) twice.
      ReservedConcurrentExecutions: 1,
      Timeout: 600,
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ PLAN_QUEUE_URL: Match.anyValue(), BATCH_QUOTAS: '{"minRecordsPerJob":50,"maxJobsInFlightPerModel":20}' }) },
    });
  });

  it('gives Bedrock a role it alone may assume, for this account’s jobs, reading and writing only batch-inference/', () => {
    const roles = Object.entries(json.Resources).filter(([id, r]) => r.Type === 'AWS::IAM::Role' && id.startsWith('BatchBedrockServiceRole'));
    expect(roles).toHaveLength(1);
    const trust = (roles[0]?.[1].Properties['AssumeRolePolicyDocument'] as { Statement: { Principal: unknown; Condition: Record<string, unknown> }[] })
      .Statement;
    expect(trust).toHaveLength(1);
    expect(trust[0]?.Principal).toEqual({ Service: 'bedrock.amazonaws.com' });
    expect(Object.keys(trust[0]?.Condition ?? {}).sort()).toEqual(['ArnLike', 'StringEquals']);
    const statements = statementsOf(/^BatchBedrockServiceRole/);
    const actions = statements.flatMap((s) => [s.Action].flat()).sort();
    expect(actions).toEqual(['bedrock:InvokeModel', 's3:GetObject', 's3:ListBucket', 's3:PutObject']);
    expect(JSON.stringify(statements)).toContain('/batch-inference/*');
    expect(statements.find((s) => [s.Action].flat().includes('s3:ListBucket'))?.Condition).toEqual({ StringLike: { 's3:prefix': ['batch-inference/*'] } });
  });

  it('lets Bedrock invoke a us. (and global.) cross-Region profile of this account and its model in every Region the profile routes to', () => {
    // Where the stack is deployed, as an IAM evaluation would see the ARNs.
    const where = { 'AWS::Partition': 'aws', 'AWS::Region': 'us-east-1', 'AWS::AccountId': '123456789012' } as Record<string, string>;
    const render = (value: unknown): string => {
      if (typeof value === 'string') return value;
      const v = value as { Ref?: string; 'Fn::Join'?: [string, unknown[]] };
      if (v.Ref) return where[v.Ref] ?? `<${v.Ref}>`;
      if (v['Fn::Join']) return v['Fn::Join'][1].map(render).join(v['Fn::Join'][0]);
      return JSON.stringify(value);
    };
    const matches = (pattern: string, arn: string): boolean => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(arn);
    const invoke = statementsOf(/^BatchBedrockServiceRole/).filter((s) => [s.Action].flat().includes('bedrock:InvokeModel') && s.Condition === undefined);
    const allowed = (arn: string): boolean =>
      invoke.some((s) =>
        [s.Resource]
          .flat()
          .map(render)
          .some((pattern) => matches(pattern, arn)),
      );
    const model = 'anthropic.claude-3-5-haiku-20241022-v1:0';
    expect(allowed(`arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.${model}`)).toBe(true);
    expect(allowed(`arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.${model}`)).toBe(true);
    // The Regions a us. profile routes to, and the Region-less model a global. profile invokes.
    for (const region of ['us-east-1', 'us-east-2', 'us-west-2']) expect(allowed(`arn:aws:bedrock:${region}::foundation-model/${model}`), region).toBe(true);
    expect(allowed(`arn:aws:bedrock:::foundation-model/${model}`)).toBe(true);
    expect(allowed(`arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123`)).toBe(true);
    // Not another account's profiles.
    expect(allowed(`arn:aws:bedrock:us-east-1:999999999999:inference-profile/us.${model}`)).toBe(false);
  });

  it('may create, read, stop and list jobs and pass only that role, to Bedrock only', () => {
    const statements = statementsOf(/^BatchHandlerRole/);
    const actions = new Set(statements.flatMap((s) => [s.Action].flat()));
    for (const action of [
      'bedrock:CreateModelInvocationJob',
      'bedrock:GetModelInvocationJob',
      'bedrock:StopModelInvocationJob',
      'bedrock:ListModelInvocationJobs',
    ])
      expect(actions).toContain(action);
    expect([...actions].filter((a) => a.startsWith('bedrock:InvokeModel'))).toEqual([]);
    const pass = statements.filter((s) => [s.Action].flat().includes('iam:PassRole'));
    expect(pass).toHaveLength(1);
    expect(pass[0]?.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^BatchBedrockServiceRole/) as unknown, 'Arn'] });
    expect(pass[0]?.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'bedrock.amazonaws.com' } });
  });

  it('lets generate and the batch stage, and no other function, read the provider keys of the one SSM path they are told', () => {
    const readers = Object.values(json.Resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .filter((p) => JSON.stringify(p.Properties['PolicyDocument']).includes('ssm:GetParametersByPath'));
    const roles = readers.flatMap((p) => (p.Properties['Roles'] as { Ref: string }[]).map((r) => r.Ref)).sort();
    expect(roles).toEqual([expect.stringMatching(/^BatchHandlerRole/), expect.stringMatching(/^PipelineGenerateRole/)]);
    for (const pattern of [/^BatchHandlerRole/, /^PipelineGenerateRole/]) {
      const keys = statementsOf(pattern).filter((s) => [s.Action].flat().includes('ssm:GetParametersByPath'));
      expect(keys).toHaveLength(1);
      expect([keys[0]?.Action].flat()).toEqual(['ssm:GetParametersByPath']);
      // The path itself (GetParametersByPath is authorised against it), no wildcard.
      expect(JSON.stringify(keys[0]?.Resource)).toMatch(/:parameter\/team\/llm-keys"\]/);
      expect(JSON.stringify(keys[0]?.Resource)).not.toContain('*');
    }
    const withPath = Object.values(json.Resources).filter(
      (r) => r.Type === 'AWS::Lambda::Function' && JSON.stringify(r.Properties['Environment'] ?? {}).includes('"PROVIDER_KEYS_PATH":"/team/llm-keys"'),
    );
    expect(withPath).toHaveLength(2);
    expect(parseConfig(cdkJsonContext()).providerKeysPath).toBe('/polyeval/provider-keys');
    expect(parseConfig({ ...cdkJsonContext(), stackName: 'Polyeval-Staging' }).providerKeysPath).toBe('/polyeval/Polyeval-Staging/provider-keys');
    expect(() => parseConfig({ ...cdkJsonContext(), providerKeysPath: 'keys' })).toThrow(/context "providerKeysPath"/);
  });

  it('refuses quotas and timeouts no job could run under, naming the context key', () => {
    const context = cdkJsonContext();
    expect(() => parseConfig({ ...context, batchQuotas: '{"minRecords":5}' })).toThrow(/context "batchQuotas"/);
    expect(() => parseConfig({ ...context, batchQuotas: { minRecordsPerJob: 60_000 } })).toThrow(/batchQuotas.*above the records a job may hold/);
    expect(() => parseConfig({ ...context, batchTimeoutHours: 12 })).toThrow(/context "batchTimeoutHours"/);
    expect(parseConfig({ ...context, batchQuotas: '{"minRecordsPerJob":1}' }).batchQuotas).toEqual({ minRecordsPerJob: 1 });
  });
});
