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
    expect(caps).toMatchObject({ ...expected, maxStopSequences: 4, completion: false, logprobs: false });
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
    expect(adapted).toEqual({ params, clientStops: [], warnings: [] });
  });

  it('cuts an answer at the first stop sequence it contains', () => {
    expect(cutAtStops('3\nperché', ['\n', 'ché'])).toBe('3');
    expect(cutAtStops('nessuno', ['\n'])).toBe('nessuno');
  });
});
