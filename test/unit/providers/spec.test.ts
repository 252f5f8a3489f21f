import { describe, expect, it } from 'vitest';
import { InputError } from '#core/errors.ts';
import { createNetworkProvider, parseNetworkSpec } from '#providers/index.ts';

describe('parseNetworkSpec', () => {
  it.each([
    ['bedrock:anthropic.claude-3-haiku-20240307-v1:0', { scheme: 'bedrock', modelId: 'anthropic.claude-3-haiku-20240307-v1:0' }],
    ['bedrock:us.anthropic.claude-3-5-haiku-20241022-v1:0', { scheme: 'bedrock', modelId: 'us.anthropic.claude-3-5-haiku-20241022-v1:0' }],
    ['sagemaker:my-endpoint', { scheme: 'sagemaker', endpoint: 'my-endpoint', flavour: 'tgi' }],
    ['sagemaker:my-endpoint#openai', { scheme: 'sagemaker', endpoint: 'my-endpoint', flavour: 'openai' }],
    [
      'openai:http://127.0.0.1:8000/v1/#meta-llama/Llama-3.1-8B-Instruct',
      { scheme: 'openai', baseUrl: 'http://127.0.0.1:8000/v1', model: 'meta-llama/Llama-3.1-8B-Instruct' },
    ],
  ])('parses %s', (spec, expected) => {
    expect(parseNetworkSpec(spec)).toEqual(expected);
  });

  it.each([['reference'], ['replay:samples.jsonl'], ['vertex:gemini']])('leaves %s to other providers', (spec) => {
    expect(parseNetworkSpec(spec)).toBeUndefined();
    expect(createNetworkProvider(spec)).toBeUndefined();
  });

  it.each([
    ['bedrock:', /bedrock:<model-id>/],
    ['sagemaker:bad_name!', /endpoint name/],
    ['sagemaker:ok-name#vllm', /#vllm/],
    ['openai:http://host/v1#', /empty model/],
  ])('rejects %s with an InputError naming the spec', (spec, reason) => {
    const attempt = (): unknown => parseNetworkSpec(spec);
    expect(attempt).toThrow(InputError);
    expect(attempt).toThrow(reason);
    expect(attempt).toThrow(JSON.stringify(spec));
  });

  it('rejects a missing --api-key-env variable when building an openai provider', () => {
    expect(() => createNetworkProvider('openai:http://127.0.0.1:1/v1#m', { apiKeyEnv: 'NOPE', env: {} })).toThrow(/NOPE/);
  });

  it('rejects a concurrency below one naming the option', () => {
    expect(() => createNetworkProvider('openai:http://127.0.0.1:1/v1#m', { concurrency: 0 })).toThrow(/concurrency/);
  });
});
