/**
 * RefusedFields learns a field only from a 400 that names it as refused: the server bodies
 * below are hand-written in the shapes the servers produce (sources in openai-request.ts), and
 * an unrelated 400 that merely mentions a field — a validation error echoing the whole request
 * body, a context-length error — leaves every field in place.
 */
import { describe, expect, it } from 'vitest';
import { ProviderCallError } from '#providers/failures.ts';
import { RefusedFields } from '#providers/openai-request.ts';

const BODY = {
  model: 'm',
  messages: [{ role: 'user', content: 'Is a plum a fruit?' }],
  reasoning_effort: 'none',
  chat_template_kwargs: { enable_thinking: false },
  logprobs: true,
  top_logprobs: 20,
};

function bad(message: string, status = 400) {
  return new ProviderCallError(message, { retryable: false, status });
}

describe('RefusedFields.learn', () => {
  it.each([
    ['Ollama v0.12.3 think value', 'think value "none" is not supported for this model', 'reasoning_effort'],
    [
      "vLLM's Literal on reasoning_effort",
      `[{'type': 'literal_error', 'loc': ('body', 'reasoning_effort'), 'msg': "Input should be 'low', 'medium' or 'high'", 'input': 'none'}]`,
      'reasoning_effort',
    ],
    ['OpenAI, a model without reasoning', "Unsupported parameter: 'reasoning_effort' is not supported with this model.", 'reasoning_effort'],
    ['an OpenAI reasoning model on logprobs', "Unsupported parameter: 'logprobs' is not supported with this model.", 'logprobs'],
    ['Gemini on logprobs', 'Logprobs is not enabled for models/gemini-2.5-flash', 'logprobs'],
    ['Google JSON on an unknown field', 'Invalid JSON payload received. Unknown name "chat_template_kwargs": Cannot find field.', 'chat_template_kwargs'],
  ])('learns %s and strips the field', (_name, message, field) => {
    const refused = new RefusedFields();

    expect(refused.learn(bad(message), BODY)).toBe(true);

    expect(refused.has(field)).toBe(true);
    expect(refused.strip(BODY)).not.toHaveProperty(field);
  });

  it.each([
    [
      'a vLLM model-validator error echoing the body',
      `[{'type': 'value_error', 'loc': ('body',), 'msg': 'Value error, stream_options can only be set if stream is true', 'input': {'model': 'm', 'reasoning_effort': 'none', 'chat_template_kwargs': {'enable_thinking': False}, 'logprobs': True, 'top_logprobs': 20}}]`,
    ],
    [
      'a context-length error that mentions logprobs in passing',
      "This model's maximum context length is 2048 tokens. However, you requested 2100 tokens (2090 in the messages, 10 in the completion); logprobs and reasoning_effort were set. Please reduce the length of the messages.",
    ],
    ['a range error on top_logprobs', 'top_logprobs must be between 0 and 20'],
  ])('keeps every field on %s', (_name, message) => {
    const refused = new RefusedFields();

    expect(refused.learn(bad(message), BODY)).toBe(false);

    expect(refused.strip(BODY)).toEqual(BODY);
  });

  it('learns nothing from a status other than 400/422', () => {
    expect(new RefusedFields().learn(bad('think value "none" is not supported for this model', 500), BODY)).toBe(false);
  });
});
