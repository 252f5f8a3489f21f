/**
 * An OpenAI-like API as one file: `mistral:` specs parsed by `openAiLikeKind`, and the wire
 * hooks that rename and add request fields (what the provider file declares instead of an
 * edit of openai-wire.ts).
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '#core/errors.ts';
import { PROVIDER_REGISTRY, applyWireHooks, parseNetworkSpec } from '#providers/index.ts';
import { createBatchClient } from '#providers/batch/registry.ts';

describe('mistral: specs', () => {
  it.each([
    ['mistral:mistral-small-latest', { scheme: 'mistral', baseUrl: 'https://api.mistral.ai/v1', model: 'mistral-small-latest' }],
    ['mistral:http://127.0.0.1:8000/v1/#codestral-latest', { scheme: 'mistral', baseUrl: 'http://127.0.0.1:8000/v1', model: 'codestral-latest' }],
  ])('parses %s', (spec, expected) => {
    expect(parseNetworkSpec(spec)).toEqual(expected);
  });

  it.each([
    ['mistral:', /empty model name; expected mistral:<model>, e.g. mistral:mistral-small-latest/],
    ['mistral:ftp://x#m', /base URL must be http\(s\)/],
  ])('refuses %s naming what is wrong', (spec, reason) => {
    expect(() => parseNetworkSpec(spec)).toThrow(InputError);
    expect(() => parseNetworkSpec(spec)).toThrow(reason);
  });

  it('is a billed kind priced by model id, listed with its key variable', () => {
    const kind = PROVIDER_REGISTRY.byScheme('mistral');
    expect(kind).toMatchObject({ billed: true, tablePriced: true, usage: 'mistral:[<base-url>#]<model>', options: ['api-key-env'] });
    expect(kind?.description).toMatch(/MISTRAL_API_KEY/);
  });

  it('refuses --batch before reading a key: the wire hooks are not applied to batch lines, so no batch body goes out unrenamed', () => {
    const open = () => createBatchClient('mistral:mistral-small-latest', { env: { MISTRAL_API_KEY: 'm-key' } });
    expect(open).toThrow(InputError);
    expect(open).toThrow(/--batch: provider "mistral" has no batch API in polyeval \(batch runs take: openai: .*anthropic: /);
  });
});

describe('applyWireHooks', () => {
  it('renames fields and adds the extra ones, keeping every other field', () => {
    expect(applyWireHooks({ model: 'm', seed: 7, max_tokens: 4 }, { rename: { seed: 'random_seed' }, extra: { safe_prompt: false } })).toEqual({
      model: 'm',
      random_seed: 7,
      max_tokens: 4,
      safe_prompt: false,
    });
  });

  it('leaves a body without the renamed field as it is, and lets the body win over an extra field', () => {
    expect(applyWireHooks({ model: 'm', safe_prompt: true }, { rename: { seed: 'random_seed' }, extra: { safe_prompt: false } })).toEqual({
      model: 'm',
      safe_prompt: true,
    });
  });

  it('sends the body unchanged without hooks', () => {
    const body = { model: 'm', seed: 1 };
    expect(applyWireHooks(body, undefined)).toBe(body);
  });
});
