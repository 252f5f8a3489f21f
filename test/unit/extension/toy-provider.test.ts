// A hand-made provider registered only in a registry of its own: `-m` lookup, creation with
// the host's file reader, the billed flag, and the generate role's IAM statements and cdk-nag
// findings derive from its file alone.
import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import type { ProviderKind } from '#core/models/provider-kind.ts';
import type { Provider } from '#core/models/provider.ts';
import { reference } from '#core/models/reference.ts';
import { createProviderRegistry } from '#providers/registry.ts';
import { modelInvocationFindings, modelInvocationReason, modelInvocationStatements } from '../../../infra/defaults/model-invocation.ts';

/** A provider that answers every task with the text of the file its spec names. */
const echo: ProviderKind = {
  scheme: 'echo',
  usage: 'echo:<file>',
  description: 'answers with a file',
  argument: true,
  billed: true,
  answersWithReference: false,
  iam: [{ sid: 'InvokeEchoModels', actions: ['echo:Invoke'], resources: [{ service: 'echo', resource: 'model/*', region: 'stack', account: true }] }],
  iamReason: 'echo models of this account',
  async create(path, ctx): Promise<Provider> {
    const text = await ctx.readText(path);
    return {
      id: ctx.spec,
      kind: 'echo',
      model: path,
      concurrency: 1,
      generate: async () => ({ text, usage: { promptTokens: 0, completionTokens: 0 }, latencyMs: 0, attempts: 1 }),
    };
  },
};

describe('a provider described by one file', () => {
  const registry = createProviderRegistry([reference, echo]);

  it('is found by its scheme, with the rest of the spec; its bare scheme and unknown ones are not', () => {
    expect(registry.find('echo:answers.txt')).toEqual({ kind: echo, rest: 'answers.txt' });
    expect(registry.find('echo')).toBeUndefined();
    expect(registry.find('reference')).toEqual({ kind: reference, rest: '' });
    expect(registry.find('reference:x')).toBeUndefined();
    expect(registry.find('bedrock:m')).toBeUndefined();
    expect(registry.network).toEqual([]);
  });

  it('is created through the host’s reader and answers from it', async () => {
    const found = registry.find('echo:a.txt');
    const provider = await found?.kind.create(found.rest, { spec: 'echo:a.txt', options: {}, readText: async (p) => `read ${p}` });
    const answer = await provider?.generate({
      taskId: 't',
      sample: 0,
      prompt: { style: 'chat', messages: [] },
      params: { temperature: 0, topP: 1, maxTokens: 1, stop: [] },
    } as never);
    expect(answer?.text).toBe('read a.txt');
    expect(registry.byScheme('echo')?.billed).toBe(true);
  });

  it('refuses two providers with one scheme', () => {
    expect(() => createProviderRegistry([echo, { ...echo }])).toThrow(/two providers have the scheme "echo"/);
  });

  it('gives the generate role its statements and cdk-nag findings', () => {
    const stack = new Stack(new App(), 'Toy', { env: { account: '123456789012', region: 'eu-south-1' } });
    const statements = modelInvocationStatements(stack, registry.kinds).map((s) => stack.resolve(s.toStatementJson()) as Record<string, unknown>);
    expect(statements).toEqual([
      {
        Sid: 'InvokeEchoModels',
        Effect: 'Allow',
        Action: 'echo:Invoke',
        Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':echo:eu-south-1:123456789012:model/*']] },
      },
    ]);
    expect(modelInvocationFindings(stack, registry.kinds)).toEqual(['AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:echo:eu-south-1:123456789012:model/*]']);
    expect(modelInvocationReason(registry.kinds)).toBe('The model is chosen per run (echo:<file>): echo: echo models of this account.');
  });
});
