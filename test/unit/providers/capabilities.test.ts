import { describe, expect, it } from 'vitest';
import { adaptParams, capabilitiesOf, cutAtStops, shippedCapabilityTable } from '#providers/capabilities.ts';

const table = shippedCapabilityTable();
const params = { temperature: 0.2, topP: 0.9, maxTokens: 512, stop: ['\n'] };

describe('the model-capabilities table', () => {
  it.each([
    ['anthropic.claude-3-haiku-20240307-v1:0', { stopNonWhitespace: true, exclusiveSampling: false }],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', { stopNonWhitespace: true, exclusiveSampling: true }],
    ['eu.anthropic.claude-haiku-4-5-20251001-v1:0', { stopNonWhitespace: true, exclusiveSampling: true }],
    ['meta.llama3-1-70b-instruct-v1:0', { stopNonWhitespace: false, exclusiveSampling: false }],
  ])('knows what bedrock:%s accepts', (model, expected) => {
    const caps = capabilitiesOf(table, 'bedrock', model);
    expect(caps).toMatchObject({ ...expected, maxStopSequences: 2500, completion: false, logprobs: false });
    expect(caps.sources.length).toBeGreaterThan(0);
  });

  it('treats OpenAI chat models as chat-only and other openai: models as completion-capable', () => {
    expect(capabilitiesOf(table, 'openai', 'gpt-4o-mini').completion).toBe(false);
    expect(capabilitiesOf(table, 'openai', 'qwen2.5-7b-instruct').completion).toBe(true);
  });

  it('adapts the RoCode recipe for a Claude 4.5 model: temperature kept, top_p dropped with a warning', () => {
    const adapted = adaptParams(capabilitiesOf(table, 'bedrock', 'anthropic.claude-sonnet-4-5-20250929-v1:0'), params);
    expect(adapted.params).toMatchObject({ temperature: 0.2, topP: 1, stop: [] });
    expect(adapted.clientStops).toEqual(['\n']);
    expect(adapted.warnings).toHaveLength(2);
  });

  it('changes nothing for a model that takes every setting', () => {
    const adapted = adaptParams(capabilitiesOf(table, 'openai', 'qwen'), params);
    expect(adapted).toEqual({ params, clientStops: [], warnings: [], omitSampling: false, maxTokensField: 'max_tokens' });
  });

  it('cuts an answer at the first stop sequence it contains', () => {
    expect(cutAtStops('3\nperché', ['\n', 'ché'])).toBe('3');
    expect(cutAtStops('nessuno', ['\n'])).toBe('nessuno');
  });

  it('knows OpenAI reasoning models take max_completion_tokens and no temperature, top_p or stop (defect 4)', () => {
    for (const model of ['o3-mini', 'o4-mini', 'gpt-5-mini']) {
      const caps = capabilitiesOf(table, 'openai', model);
      expect(caps, model).toMatchObject({ sampling: false, maxTokensField: 'max_completion_tokens', stopSequences: false, completion: false, logprobs: false });
      const adapted = adaptParams(caps, params);
      expect(adapted).toMatchObject({ omitSampling: true, maxTokensField: 'max_completion_tokens', clientStops: ['\n'] });
      expect(adapted.params.stop).toEqual([]);
    }
    expect(capabilitiesOf(table, 'openai', 'gpt-4o').sampling).toBe(true);
  });

  it('sends no stop to an Azure reasoning deployment: Azure refuses it as the OpenAI API does (stops are cut client-side)', () => {
    for (const deployment of ['o3-mini', 'o4-mini', 'gpt-5-mini']) {
      const adapted = adaptParams(capabilitiesOf(table, 'azure', deployment), params);
      expect(adapted, deployment).toMatchObject({ omitSampling: true, maxTokensField: 'max_completion_tokens', clientStops: ['\n'] });
      expect(adapted.params.stop).toEqual([]);
    }
    expect(adaptParams(capabilitiesOf(table, 'azure', 'gpt-4o-prod'), params).params.stop).toEqual(['\n']);
  });

  it('keeps gpt-3.5-turbo-instruct a completions model while gpt-3.5-turbo is chat-only (defect 4)', () => {
    expect(capabilitiesOf(table, 'openai', 'gpt-3.5-turbo-instruct').completion).toBe(true);
    expect(capabilitiesOf(table, 'openai', 'gpt-3.5-turbo-0125').completion).toBe(false);
  });

  it.each([
    ['anthropic.claude-opus-4-1-20250805-v1:0', { exclusiveSampling: true, sampling: true }],
    ['us.anthropic.claude-opus-4-7', { sampling: false }],
    ['anthropic.claude-opus-4-20250514-v1:0', { exclusiveSampling: false, sampling: true }],
  ])('encodes Claude-on-Bedrock sampling rules per generation: %s (defect 5)', (model, expected) => {
    expect(capabilitiesOf(table, 'bedrock', model)).toMatchObject(expected);
  });

  it('encodes Bedrock stop-sequence rules: Titan takes only "|" or "User:", gpt-oss and Qwen3 none (defect 6)', () => {
    const titan = adaptParams(capabilitiesOf(table, 'bedrock', 'amazon.titan-text-express-v1'), { ...params, stop: ['User:', '\n'] });
    expect(titan).toMatchObject({ params: { stop: ['User:'] }, clientStops: ['\n'] });
    for (const model of ['openai.gpt-oss-120b-1:0', 'qwen.qwen3-32b-v1:0']) {
      expect(adaptParams(capabilitiesOf(table, 'bedrock', model), params)).toMatchObject({ params: { stop: [] }, clientStops: ['\n'] });
    }
  });
});
